/**
 * Rules of a workflow's graph (spec part 2 "Workflow"): which transitions may leave a step, no
 * cycle that never waits, and what a graph needs before it may be enabled.
 */
import type { FieldError } from '@stamp/http-kit';

import type { Step, StepType, Transition } from './events.ts';

/** Steps at which an execution waits: a cycle through one of them cannot spin. */
const WAITING_STEPS: ReadonlySet<StepType> = new Set(['DELAY', 'WAIT_FOR_EVENT']);

/**
 * Whether the graph has a cycle that never passes a DELAY or WAIT_FOR_EVENT step (an execution
 * would run it without end): a cycle among the other steps alone.
 */
export function hasWaitlessCycle(
  steps: readonly Step[],
  transitions: readonly Transition[],
): boolean {
  const typeOf = new Map(steps.map((step) => [step.id, step.type]));
  const next = new Map<string, string[]>();
  for (const { fromStepId, toStepId } of transitions) {
    const from = typeOf.get(fromStepId);
    const to = typeOf.get(toStepId);
    if (
      from === undefined ||
      to === undefined ||
      WAITING_STEPS.has(from) ||
      WAITING_STEPS.has(to)
    ) {
      continue;
    }
    next.set(fromStepId, [...(next.get(fromStepId) ?? []), toStepId]);
  }
  // Iterative depth-first search: 1 = on the current path, 2 = done.
  const mark = new Map<string, 1 | 2>();
  for (const start of next.keys()) {
    if (mark.has(start)) continue;
    const stack: { id: string; index: number }[] = [{ id: start, index: 0 }];
    mark.set(start, 1);
    while (stack.length > 0) {
      const top = stack[stack.length - 1];
      if (top === undefined) break;
      const successors = next.get(top.id) ?? [];
      const successor = successors[top.index];
      top.index += 1;
      if (successor === undefined) {
        mark.set(top.id, 2);
        stack.pop();
      } else if (mark.get(successor) === 1) {
        return true;
      } else if (!mark.has(successor)) {
        mark.set(successor, 1);
        stack.push({ id: successor, index: 0 });
      }
    }
  }
  return false;
}

/**
 * Why a transition of this shape may not leave `from` (null: it may), given the transitions
 * already leaving it: a CONDITION's carry a distinct `branch`, a WAIT_FOR_EVENT's a distinct
 * `waitOutcome`, other steps have one next step, EXIT has none, nothing enters the TRIGGER.
 */
export function transitionProblem(
  from: Step,
  to: Step,
  transition: Pick<Transition, 'branch' | 'waitOutcome'>,
  leaving: readonly Transition[],
): FieldError | null {
  if (to.type === 'TRIGGER') {
    return {
      field: 'toStepId',
      message: 'No transition enters the trigger',
      code: 'invalid_target',
    };
  }
  if (from.id === to.id) {
    return { field: 'toStepId', message: 'A step cannot lead to itself', code: 'invalid_target' };
  }
  if (from.type === 'EXIT') {
    return {
      field: 'fromStepId',
      message: 'An EXIT step ends the execution',
      code: 'invalid_source',
    };
  }
  if (from.type === 'CONDITION') {
    if (transition.branch === null || transition.waitOutcome !== null) {
      return {
        field: 'branch',
        message: "A transition out of a CONDITION step carries branch 'yes' or 'no'",
        code: 'invalid_branch',
      };
    }
    if (leaving.some((existing) => existing.branch === transition.branch)) {
      return {
        field: 'branch',
        message: `The CONDITION step has a '${transition.branch}' transition already`,
        code: 'duplicate_branch',
      };
    }
    return null;
  }
  if (from.type === 'WAIT_FOR_EVENT') {
    if (transition.waitOutcome === null || transition.branch !== null) {
      return {
        field: 'waitOutcome',
        message:
          "A transition out of a WAIT_FOR_EVENT step carries waitOutcome 'EVENT' or 'TIMEOUT'",
        code: 'invalid_wait_outcome',
      };
    }
    if (leaving.some((existing) => existing.waitOutcome === transition.waitOutcome)) {
      return {
        field: 'waitOutcome',
        message: `The WAIT_FOR_EVENT step has a '${transition.waitOutcome}' transition already`,
        code: 'duplicate_wait_outcome',
      };
    }
    return null;
  }
  if (transition.branch !== null || transition.waitOutcome !== null) {
    return {
      field: transition.branch === null ? 'waitOutcome' : 'branch',
      message: `A transition out of a ${from.type} step carries no branch or waitOutcome`,
      code: 'invalid_branch',
    };
  }
  if (leaving.length > 0) {
    return {
      field: 'fromStepId',
      message: `The ${from.type} step has a next step already`,
      code: 'duplicate_transition',
    };
  }
  return null;
}

/**
 * What keeps a graph from being enabled, one problem per step: the trigger has no next step, a
 * CONDITION lacks one of its branches, a WAIT_FOR_EVENT lacks its EVENT transition, a step cannot
 * be reached from the trigger.
 */
export function incompleteness(
  steps: readonly Step[],
  transitions: readonly Transition[],
): FieldError[] {
  const problems: FieldError[] = [];
  const leaving = (id: string): Transition[] =>
    transitions.filter((transition) => transition.fromStepId === id);
  for (const step of steps) {
    const out = leaving(step.id);
    if (step.type === 'TRIGGER' && out.length === 0) {
      problems.push({
        field: `steps.${step.id}`,
        message: 'The trigger leads to no step',
        code: 'incomplete_graph',
      });
    }
    if (step.type === 'CONDITION') {
      for (const branch of ['yes', 'no'] as const) {
        if (!out.some((transition) => transition.branch === branch)) {
          problems.push({
            field: `steps.${step.id}`,
            message: `The CONDITION step "${step.name}" has no '${branch}' branch`,
            code: 'incomplete_graph',
          });
        }
      }
    }
    if (
      step.type === 'WAIT_FOR_EVENT' &&
      !out.some((transition) => transition.waitOutcome === 'EVENT')
    ) {
      problems.push({
        field: `steps.${step.id}`,
        message: `The WAIT_FOR_EVENT step "${step.name}" has no 'EVENT' transition`,
        code: 'incomplete_graph',
      });
    }
  }
  const trigger = steps.find((step) => step.type === 'TRIGGER');
  const reached = new Set<string>(trigger === undefined ? [] : [trigger.id]);
  const queue = [...reached];
  for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
    for (const transition of leaving(id)) {
      if (!reached.has(transition.toStepId)) {
        reached.add(transition.toStepId);
        queue.push(transition.toStepId);
      }
    }
  }
  for (const step of steps) {
    if (!reached.has(step.id)) {
      problems.push({
        field: `steps.${step.id}`,
        message: `The ${step.type} step "${step.name}" cannot be reached from the trigger`,
        code: 'unreachable_step',
      });
    }
  }
  return problems;
}

/** The next step after `stepId` along the transition matching `outcome` (null: the end). */
export function nextStepOf(
  transitions: readonly Transition[],
  stepId: string,
  outcome: { branch?: 'yes' | 'no'; waitOutcome?: 'EVENT' | 'TIMEOUT' } = {},
): string | null {
  const found = transitions.find(
    (transition) =>
      transition.fromStepId === stepId &&
      (outcome.branch === undefined || transition.branch === outcome.branch) &&
      (outcome.waitOutcome === undefined || transition.waitOutcome === outcome.waitOutcome),
  );
  return found?.toStepId ?? null;
}
