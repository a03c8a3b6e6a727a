/**
 * Given/when/then tests of the workflow deciders: given the events of a workflow stream, when a
 * command is decided, then the events it appends or the error it is refused with (the graph
 * rules of spec part 2 "Workflow" and the 409 of spec part 3).
 */
import type { ApiError } from '@stamp/http-kit';
import { thrownApiError } from '@stamp/testkit/api-error.ts';

import {
  decideAddStep,
  decideAddTransition,
  decideCreate,
  decideDelete,
  decideRemoveStep,
  decideRemoveTransition,
  decideUpdate,
} from './decide.ts';
import {
  evolveWorkflow,
  type Step,
  type StepType,
  type Transition,
  type WorkflowEvent,
  type WorkflowState,
} from './events.ts';

const now = new Date('2026-03-01T10:00:00.000Z');
const updatedAt = now.toISOString();

const given = (...events: WorkflowEvent[]): WorkflowState =>
  events.reduce(evolveWorkflow, { exists: false });

const created = decideCreate(
  {
    workflowId: 'w1',
    projectId: 'p1',
    triggerStepId: 'trigger',
    name: 'Onboarding',
    description: null,
    eventName: 'signed-up',
    allowReentry: false,
  },
  now,
);

const step = (id: string, type: StepType, config: Record<string, unknown> = {}): Step => ({
  id,
  type,
  name: id,
  config,
  position: null,
});
const added = (id: string, type: StepType): WorkflowEvent => ({
  type: 'WorkflowStepAdded',
  data: { step: step(id, type), updatedAt },
});
const transition = (
  id: string,
  fromStepId: string,
  toStepId: string,
  outcome: { branch?: 'yes' | 'no'; waitOutcome?: 'EVENT' | 'TIMEOUT' } = {},
): Transition => ({
  id,
  fromStepId,
  toStepId,
  branch: outcome.branch ?? null,
  waitOutcome: outcome.waitOutcome ?? null,
});
const linked = (...args: Parameters<typeof transition>): WorkflowEvent => ({
  type: 'WorkflowTransitionAdded',
  data: { transition: transition(...args), updatedAt },
});

/** Status, code and the field errors' `field:code` of a refusal. */
const summary = (error: ApiError) => ({
  status: error.status,
  code: error.code,
  fields: (error.options.errors ?? []).map((field) => `${field.field}:${field.code}`),
});

describe('creating', () => {
  it('given nothing, when created, then a disabled EVENT workflow with its TRIGGER step', () => {
    const state = given(...created);
    expect(state).toMatchObject({
      exists: true,
      settings: { enabled: false, triggerType: 'EVENT', eventName: 'signed-up' },
      steps: [{ id: 'trigger', type: 'TRIGGER' }],
      transitions: [],
    });
  });

  it('given a workflow of another project, when edited, then 404 WORKFLOW_NOT_FOUND', () => {
    const error = thrownApiError(() =>
      decideAddStep(given(...created), 'p2', step('s1', 'EXIT'), 0, now),
    );
    expect(summary(error)).toMatchObject({ status: 404, code: 'WORKFLOW_NOT_FOUND' });
  });
});

describe('transitions', () => {
  const state = given(
    ...created,
    added('condition', 'CONDITION'),
    added('wait', 'WAIT_FOR_EVENT'),
    added('delay', 'DELAY'),
    added('send', 'SEND_EMAIL'),
    added('exit', 'EXIT'),
    linked('t1', 'trigger', 'condition'),
    linked('t2', 'condition', 'send', { branch: 'yes' }),
    linked('t3', 'wait', 'send', { waitOutcome: 'EVENT' }),
  );
  const adding = (candidate: Transition, active = 0) =>
    decideAddTransition(state, 'p1', candidate, active, now);

  it('when the other branch of a CONDITION is added, then it is recorded', () => {
    expect(adding(transition('t4', 'condition', 'exit', { branch: 'no' }))).toEqual([
      {
        type: 'WorkflowTransitionAdded',
        data: { transition: transition('t4', 'condition', 'exit', { branch: 'no' }), updatedAt },
      },
    ]);
  });

  it.each([
    [
      'a second yes branch',
      transition('x', 'condition', 'exit', { branch: 'yes' }),
      'branch:duplicate_branch',
    ],
    [
      'a CONDITION transition without a branch',
      transition('x', 'condition', 'exit'),
      'branch:invalid_branch',
    ],
    [
      'a second EVENT outcome',
      transition('x', 'wait', 'exit', { waitOutcome: 'EVENT' }),
      'waitOutcome:duplicate_wait_outcome',
    ],
    [
      'a WAIT_FOR_EVENT transition without an outcome',
      transition('x', 'wait', 'exit'),
      'waitOutcome:invalid_wait_outcome',
    ],
    [
      'a branch out of a DELAY',
      transition('x', 'delay', 'exit', { branch: 'yes' }),
      'branch:invalid_branch',
    ],
    [
      'a second next step of the trigger',
      transition('x', 'trigger', 'exit'),
      'fromStepId:duplicate_transition',
    ],
    [
      'a transition into the trigger',
      transition('x', 'send', 'trigger'),
      'toStepId:invalid_target',
    ],
    ['a transition out of an EXIT', transition('x', 'exit', 'send'), 'fromStepId:invalid_source'],
    ['a step leading to itself', transition('x', 'delay', 'delay'), 'toStepId:invalid_target'],
    ['a step of another workflow', transition('x', 'send', 'step-of-w2'), 'toStepId:unknown_step'],
  ])('when %s is added, then 422 naming the field', (_name, candidate, field) => {
    expect(summary(thrownApiError(() => adding(candidate)))).toEqual({
      status: 422,
      code: 'VALIDATION_ERROR',
      fields: [field],
    });
  });

  it('when a cycle that never waits would close, then 422; through a DELAY, then it is recorded', () => {
    const looping = given(
      ...created,
      added('a', 'SEND_EMAIL'),
      added('b', 'WEBHOOK'),
      added('d', 'DELAY'),
      linked('t1', 'trigger', 'a'),
      linked('t2', 'a', 'b'),
    );
    expect(
      summary(
        thrownApiError(() => decideAddTransition(looping, 'p1', transition('x', 'b', 'a'), 0, now)),
      ),
    ).toEqual({ status: 422, code: 'VALIDATION_ERROR', fields: ['toStepId:waitless_cycle'] });
    const waiting = given(
      ...created,
      added('a', 'SEND_EMAIL'),
      added('d', 'DELAY'),
      linked('t1', 'trigger', 'a'),
      linked('t2', 'a', 'd'),
    );
    expect(decideAddTransition(waiting, 'p1', transition('x', 'd', 'a'), 0, now)).toHaveLength(1);
  });

  it('given 3 active executions, when a transition is added or removed, then 409 naming them', () => {
    const error = thrownApiError(() =>
      adding(transition('t4', 'condition', 'exit', { branch: 'no' }), 3),
    );
    expect(summary(error)).toMatchObject({ status: 409, code: 'CONFLICT' });
    expect(error.message).toContain('3 active executions');
    expect(
      thrownApiError(() => decideRemoveTransition(state, 'p1', 't2', 1, now)).message,
    ).toContain('1 active execution:');
  });

  it('when an unknown transition is removed, then 404 TRANSITION_NOT_FOUND', () => {
    expect(
      summary(thrownApiError(() => decideRemoveTransition(state, 'p1', 'nope', 0, now))),
    ).toMatchObject({ status: 404, code: 'TRANSITION_NOT_FOUND' });
  });
});

describe('enabling', () => {
  it('given an incomplete graph, when enabled, then 422 with one reason per problem', () => {
    const state = given(
      ...created,
      added('condition', 'CONDITION'),
      added('wait', 'WAIT_FOR_EVENT'),
      added('orphan', 'SEND_EMAIL'),
      linked('t1', 'trigger', 'condition'),
      linked('t2', 'condition', 'wait', { branch: 'yes' }),
    );
    const error = thrownApiError(() => decideUpdate(state, 'p1', { enabled: true }, now));
    expect(summary(error)).toEqual({
      status: 422,
      code: 'VALIDATION_ERROR',
      fields: [
        'steps.condition:incomplete_graph',
        'steps.wait:incomplete_graph',
        'steps.orphan:unreachable_step',
      ],
    });
    expect(error.options.errors?.map((field) => field.message)).toEqual([
      `The CONDITION step "condition" has no 'no' branch`,
      `The WAIT_FOR_EVENT step "wait" has no 'EVENT' transition`,
      'The SEND_EMAIL step "orphan" cannot be reached from the trigger',
    ]);
  });

  it('given a complete graph, when enabled, then WorkflowUpdated with enabled alone', () => {
    const state = given(...created, added('exit', 'EXIT'), linked('t1', 'trigger', 'exit'));
    expect(decideUpdate(state, 'p1', { enabled: true, name: 'Onboarding' }, now)).toEqual([
      { type: 'WorkflowUpdated', data: { changes: { enabled: true }, updatedAt } },
    ]);
  });

  it('given an enabled workflow, when nothing changes, then no event', () => {
    const state = given(...created, added('exit', 'EXIT'), linked('t1', 'trigger', 'exit'), {
      type: 'WorkflowUpdated',
      data: { changes: { enabled: true }, updatedAt },
    });
    expect(decideUpdate(state, 'p1', { enabled: true }, now)).toEqual([]);
  });
});

describe('removing steps and the workflow', () => {
  const chain = given(
    ...created,
    added('condition', 'CONDITION'),
    added('send', 'SEND_EMAIL'),
    added('exit', 'EXIT'),
    linked('t1', 'trigger', 'condition'),
    linked('t2', 'condition', 'send', { branch: 'no' }),
    linked('t3', 'send', 'exit'),
  );
  const removing = (stepId: string, splice: boolean, active = 0) =>
    decideRemoveStep(chain, 'p1', { stepId, splice, transitionId: () => 'spliced' }, active, now);

  it('when a step is spliced out, then its predecessor leads to its successor on the same branch', () => {
    const events = removing('send', true);
    expect(events).toEqual([
      {
        type: 'WorkflowStepRemoved',
        data: {
          stepId: 'send',
          spliced: transition('spliced', 'condition', 'exit', { branch: 'no' }),
          updatedAt,
        },
      },
    ]);
    expect(evolveWorkflow(chain, events[0]!)).toMatchObject({
      transitions: [
        transition('t1', 'trigger', 'condition'),
        transition('spliced', 'condition', 'exit', { branch: 'no' }),
      ],
    });
  });

  it('when a step is removed without splice, then its transitions go with it', () => {
    const after = evolveWorkflow(chain, removing('send', false)[0]!);
    expect(after).toMatchObject({ transitions: [transition('t1', 'trigger', 'condition')] });
  });

  it('when the trigger is removed, then 422; with active executions, then 409', () => {
    expect(summary(thrownApiError(() => removing('trigger', false)))).toMatchObject({
      status: 422,
      fields: ['stepId:trigger_step'],
    });
    expect(summary(thrownApiError(() => removing('send', true, 2)))).toMatchObject({ status: 409 });
  });

  it('given 2 active executions, when deleted, then 409; given none, then WorkflowDeleted', () => {
    expect(thrownApiError(() => decideDelete(chain, 'p1', 2, now)).message).toContain(
      '2 active executions',
    );
    expect(decideDelete(chain, 'p1', 0, now)).toEqual([
      { type: 'WorkflowDeleted', data: { deletedAt: updatedAt } },
    ]);
    const deleted = given(...created, { type: 'WorkflowDeleted', data: { deletedAt: updatedAt } });
    expect(summary(thrownApiError(() => decideDelete(deleted, 'p1', 0, now)))).toMatchObject({
      status: 404,
    });
  });
});
