/**
 * Pure deciders of workflow definitions: command + current state → events, throwing ApiError for
 * rule violations (spec part 3 "Workflow"; the graph rules of `graph.ts`). Structural edits (steps
 * and transitions) and deletion are refused while executions are active.
 */
import { type ApiError, conflict, notFound, validationError } from '@stamp/http-kit';

import { hasWaitlessCycle, incompleteness, transitionProblem } from './graph.ts';
import type {
  KnownWorkflow,
  Step,
  StepType,
  Transition,
  WorkflowEvent,
  WorkflowSettings,
  WorkflowState,
} from './events.ts';

const workflowNotFound = (): ApiError => notFound('WORKFLOW_NOT_FOUND', 'Workflow not found');

/**
 * The workflow of `projectId` in `state`.
 * @throws ApiError 404 WORKFLOW_NOT_FOUND when it does not exist, was deleted, or belongs to
 *   another project.
 */
export function requireWorkflow(state: WorkflowState, projectId: string): KnownWorkflow {
  if (!state.exists || state.deleted || state.projectId !== projectId) throw workflowNotFound();
  return state;
}

/** @throws ApiError 409 CONFLICT naming the count when `active` executions exist. */
function assertNoActive(active: number, what: string): void {
  if (active > 0) {
    throw conflict(
      `The workflow has ${active} active execution${active === 1 ? '' : 's'}: cancel ${active === 1 ? 'it' : 'them'} or let ${active === 1 ? 'it' : 'them'} finish before ${what}`,
    );
  }
}

function requireStep(workflow: KnownWorkflow, stepId: string): Step {
  const step = workflow.steps.find((candidate) => candidate.id === stepId);
  if (step === undefined) throw notFound('STEP_NOT_FOUND', 'Step not found');
  return step;
}

/** @throws ApiError 422 when the graph would hold a cycle that never waits. */
function assertNoWaitlessCycle(steps: readonly Step[], transitions: readonly Transition[]): void {
  if (hasWaitlessCycle(steps, transitions)) {
    throw validationError([
      {
        field: 'toStepId',
        message: 'This would make a cycle that passes no DELAY or WAIT_FOR_EVENT step',
        code: 'waitless_cycle',
      },
    ]);
  }
}

/** Creates a workflow: trigger EVENT, disabled, with its implicit TRIGGER step. */
export function decideCreate(
  command: {
    workflowId: string;
    projectId: string;
    triggerStepId: string;
    name: string;
    description: string | null;
    eventName: string;
    allowReentry: boolean;
  },
  now: Date,
): WorkflowEvent[] {
  return [
    {
      type: 'WorkflowCreated',
      data: {
        workflowId: command.workflowId,
        projectId: command.projectId,
        name: command.name,
        description: command.description,
        eventName: command.eventName,
        triggerType: 'EVENT',
        enabled: false,
        allowReentry: command.allowReentry,
        trigger: {
          id: command.triggerStepId,
          type: 'TRIGGER',
          name: 'Trigger',
          config: { eventName: command.eventName },
          position: null,
        },
        createdAt: now.toISOString(),
      },
    },
  ];
}

/**
 * Changes metadata, trigger type, `enabled` and `allowReentry` (allowed with active executions);
 * nothing when nothing changes.
 * @throws ApiError 404 WORKFLOW_NOT_FOUND; 422 listing what keeps an incomplete graph from being
 *   enabled.
 */
export function decideUpdate(
  state: WorkflowState,
  projectId: string,
  changes: Partial<WorkflowSettings>,
  now: Date,
): WorkflowEvent[] {
  const workflow = requireWorkflow(state, projectId);
  const changed: Partial<WorkflowSettings> = {};
  for (const [key, value] of Object.entries(changes) as [keyof WorkflowSettings, unknown][]) {
    if (value !== undefined && workflow.settings[key] !== value) {
      Object.assign(changed, { [key]: value });
    }
  }
  if (Object.keys(changed).length === 0) return [];
  if (changed.enabled === true) {
    const problems = incompleteness(workflow.steps, workflow.transitions);
    if (problems.length > 0) {
      throw validationError(problems, 'The workflow cannot be enabled: its graph is incomplete');
    }
  }
  return [{ type: 'WorkflowUpdated', data: { changes: changed, updatedAt: now.toISOString() } }];
}

/**
 * Deletes a workflow without active executions (spec part 3).
 * @throws ApiError 404 WORKFLOW_NOT_FOUND; 409 CONFLICT naming the active executions.
 */
export function decideDelete(
  state: WorkflowState,
  projectId: string,
  active: number,
  now: Date,
): WorkflowEvent[] {
  requireWorkflow(state, projectId);
  assertNoActive(active, 'deleting the workflow');
  return [{ type: 'WorkflowDeleted', data: { deletedAt: now.toISOString() } }];
}

/**
 * Adds a step (config already validated for its type).
 * @throws ApiError 404 WORKFLOW_NOT_FOUND; 409 CONFLICT with active executions.
 */
export function decideAddStep(
  state: WorkflowState,
  projectId: string,
  step: Step,
  active: number,
  now: Date,
): WorkflowEvent[] {
  requireWorkflow(state, projectId);
  assertNoActive(active, 'changing its steps');
  return [{ type: 'WorkflowStepAdded', data: { step, updatedAt: now.toISOString() } }];
}

/**
 * Replaces a step's name, position or config (config validated for the step's type by the
 * caller through `validate`); nothing when nothing changes.
 * @throws ApiError 404 WORKFLOW_NOT_FOUND or STEP_NOT_FOUND; 409 CONFLICT with active
 *   executions; what `validate` throws.
 */
export function decideUpdateStep(
  state: WorkflowState,
  projectId: string,
  stepId: string,
  patch: { name?: string; position?: Step['position']; config?: Record<string, unknown> },
  validate: (type: StepType, config: Record<string, unknown>) => Record<string, unknown>,
  active: number,
  now: Date,
): WorkflowEvent[] {
  const workflow = requireWorkflow(state, projectId);
  const step = requireStep(workflow, stepId);
  assertNoActive(active, 'changing its steps');
  const updated: Step = {
    ...step,
    ...(patch.name === undefined ? {} : { name: patch.name }),
    ...(patch.position === undefined ? {} : { position: patch.position }),
    ...(patch.config === undefined ? {} : { config: validate(step.type, patch.config) }),
  };
  if (JSON.stringify(updated) === JSON.stringify(step)) return [];
  return [{ type: 'WorkflowStepUpdated', data: { step: updated, updatedAt: now.toISOString() } }];
}

/**
 * Removes a step and its transitions. With `splice`, each predecessor is connected to the step's
 * successor (the transition keeps the predecessor's branch or wait outcome).
 * @throws ApiError 404 WORKFLOW_NOT_FOUND or STEP_NOT_FOUND; 409 CONFLICT with active
 *   executions; 422 for the TRIGGER step, for a splice of a step with more than one next step,
 *   or a splice that would close a cycle that never waits.
 */
export function decideRemoveStep(
  state: WorkflowState,
  projectId: string,
  command: { stepId: string; splice: boolean; transitionId: () => string },
  active: number,
  now: Date,
): WorkflowEvent[] {
  const workflow = requireWorkflow(state, projectId);
  const step = requireStep(workflow, command.stepId);
  assertNoActive(active, 'changing its steps');
  if (step.type === 'TRIGGER') {
    throw validationError([
      { field: 'stepId', message: 'The trigger step cannot be removed', code: 'trigger_step' },
    ]);
  }
  const updatedAt = now.toISOString();
  if (!command.splice) {
    return [{ type: 'WorkflowStepRemoved', data: { stepId: step.id, spliced: null, updatedAt } }];
  }
  const incoming = workflow.transitions.filter((transition) => transition.toStepId === step.id);
  const outgoing = workflow.transitions.filter((transition) => transition.fromStepId === step.id);
  if (outgoing.length > 1) {
    throw validationError([
      {
        field: 'splice',
        message: 'A step with more than one next step cannot be spliced out',
        code: 'ambiguous_splice',
      },
    ]);
  }
  const successor = outgoing[0]?.toStepId;
  const first = incoming[0];
  if (successor === undefined || first === undefined || incoming.length > 1) {
    if (incoming.length > 1 && successor !== undefined) {
      throw validationError([
        {
          field: 'splice',
          message: 'A step with more than one predecessor cannot be spliced out',
          code: 'ambiguous_splice',
        },
      ]);
    }
    return [{ type: 'WorkflowStepRemoved', data: { stepId: step.id, spliced: null, updatedAt } }];
  }
  const spliced: Transition = {
    id: command.transitionId(),
    fromStepId: first.fromStepId,
    toStepId: successor,
    branch: first.branch,
    waitOutcome: first.waitOutcome,
  };
  const steps = workflow.steps.filter((candidate) => candidate.id !== step.id);
  const transitions = [
    ...workflow.transitions.filter(
      (transition) => transition.fromStepId !== step.id && transition.toStepId !== step.id,
    ),
    spliced,
  ];
  assertNoWaitlessCycle(steps, transitions);
  return [{ type: 'WorkflowStepRemoved', data: { stepId: step.id, spliced, updatedAt } }];
}

/**
 * Adds a transition between two steps of this workflow (the rules of `transitionProblem`, and no
 * cycle that never waits).
 * @throws ApiError 404 WORKFLOW_NOT_FOUND; 409 CONFLICT with active executions; 422 naming the
 *   field for a step of another workflow or a transition the rules refuse.
 */
export function decideAddTransition(
  state: WorkflowState,
  projectId: string,
  transition: Transition,
  active: number,
  now: Date,
): WorkflowEvent[] {
  const workflow = requireWorkflow(state, projectId);
  assertNoActive(active, 'changing its transitions');
  const from = workflow.steps.find((step) => step.id === transition.fromStepId);
  const to = workflow.steps.find((step) => step.id === transition.toStepId);
  const missing = [
    ...(from === undefined ? ['fromStepId'] : []),
    ...(to === undefined ? ['toStepId'] : []),
  ];
  if (from === undefined || to === undefined) {
    throw validationError(
      missing.map((field) => ({
        field,
        message: 'No step of this workflow has this id',
        code: 'unknown_step',
      })),
    );
  }
  const leaving = workflow.transitions.filter((existing) => existing.fromStepId === from.id);
  const problem = transitionProblem(from, to, transition, leaving);
  if (problem !== null) throw validationError([problem]);
  assertNoWaitlessCycle(workflow.steps, [...workflow.transitions, transition]);
  return [{ type: 'WorkflowTransitionAdded', data: { transition, updatedAt: now.toISOString() } }];
}

/**
 * Removes a transition.
 * @throws ApiError 404 WORKFLOW_NOT_FOUND or TRANSITION_NOT_FOUND; 409 CONFLICT with active
 *   executions.
 */
export function decideRemoveTransition(
  state: WorkflowState,
  projectId: string,
  transitionId: string,
  active: number,
  now: Date,
): WorkflowEvent[] {
  const workflow = requireWorkflow(state, projectId);
  if (!workflow.transitions.some((transition) => transition.id === transitionId)) {
    throw notFound('TRANSITION_NOT_FOUND', 'Transition not found');
  }
  assertNoActive(active, 'changing its transitions');
  return [
    { type: 'WorkflowTransitionRemoved', data: { transitionId, updatedAt: now.toISOString() } },
  ];
}
