/**
 * Given/when/then tests of the execution decider: given the events of an execution (and its
 * workflow, contact and clock), when it decides a step, a timer, an awaited event, an effect's
 * outcome or a cancel, then the events it appends (spec part 3, execution states; API reference,
 * "Workflow step config").
 */
import type { ContactViewDocument } from '@stamp/contracts';

import type { Step, StepType, Transition, WorkflowState } from '../workflows/events.ts';
import {
  decideAwaitedEvent,
  decideCancel,
  decideStep,
  decideTimerDue,
  recordEffect,
  type StepDecision,
} from './decide.ts';
import {
  type ExecutionEvent,
  evolveExecution,
  type ExecutionState,
  type KnownExecution,
} from './events.ts';

const startedAt = '2026-03-01T10:00:00.000Z';
const now = new Date('2026-03-01T10:05:00.000Z');
const at = now.toISOString();

const step = (id: string, type: StepType, config: Record<string, unknown> = {}): Step => ({
  id,
  type,
  name: id,
  config,
  position: null,
});
const transition = (
  fromStepId: string,
  toStepId: string,
  outcome: Partial<Pick<Transition, 'branch' | 'waitOutcome'>> = {},
): Transition => ({
  id: `${fromStepId}->${toStepId}`,
  fromStepId,
  toStepId,
  branch: outcome.branch ?? null,
  waitOutcome: outcome.waitOutcome ?? null,
});

/** A workflow with the given steps (after the trigger) and transitions. */
const workflow = (steps: Step[], transitions: Transition[], deleted = false): WorkflowState => ({
  exists: true,
  deleted,
  id: 'w1',
  projectId: 'p1',
  settings: {
    name: 'Flow',
    description: null,
    eventName: 'signed-up',
    triggerType: 'EVENT',
    enabled: true,
    allowReentry: false,
  },
  steps: [step('trigger', 'TRIGGER'), ...steps],
  transitions,
  createdAt: startedAt,
  updatedAt: startedAt,
});

const contact: ContactViewDocument & { _id: string } = {
  _id: 'c1',
  projectId: 'p1',
  email: 'ada@example.org',
  subscribed: true,
  data: { plan: 'pro' },
  createdAt: startedAt,
  updatedAt: startedAt,
};

const started = (nextStepId: string | null): ExecutionEvent => ({
  type: 'ExecutionStarted',
  data: {
    executionId: 'x1',
    workflowId: 'w1',
    projectId: 'p1',
    contactId: 'c1',
    context: { plan: 'pro' },
    triggerEventId: 'e1',
    nextStepId,
    startedAt,
  },
});

/** The execution after `events`. */
function given(...events: ExecutionEvent[]): KnownExecution {
  const state = events.reduce<ExecutionState>(evolveExecution, { exists: false });
  if (!state.exists) throw new Error('no execution');
  return state;
}

const events = (decision: StepDecision): ExecutionEvent[] => {
  if (decision.kind !== 'events') throw new Error(`expected events, got an effect`);
  return decision.events;
};
const ending = { workflowId: 'w1', contactId: 'c1', completedAt: at };
const stepDone = (
  stepId: string,
  stepType: StepType,
  outcome: string,
  nextStepId: string | null,
  output: Record<string, unknown> | null = null,
  from = startedAt,
): ExecutionEvent => ({
  type: 'ExecutionStepCompleted',
  data: { stepId, stepType, outcome, output, startedAt: from, completedAt: at, nextStepId },
});

describe('deciding a step', () => {
  const flow = workflow(
    [
      step('delay', 'DELAY', { amount: 2, unit: 'hours' }),
      step('wait', 'WAIT_FOR_EVENT', { eventName: 'paid', timeout: 600 }),
      step('check', 'CONDITION', { field: 'data.plan', operator: 'equals', value: 'pro' }),
      step('send', 'SEND_EMAIL', { templateId: 't1' }),
      step('exit', 'EXIT', { reason: 'Not a fit' }),
    ],
    [
      transition('trigger', 'delay'),
      transition('delay', 'wait'),
      transition('wait', 'check', { waitOutcome: 'EVENT' }),
      transition('wait', 'exit', { waitOutcome: 'TIMEOUT' }),
      transition('check', 'send', { branch: 'yes' }),
      transition('check', 'exit', { branch: 'no' }),
    ],
  );
  const decide = (
    execution: KnownExecution,
    revision = 0,
    target: typeof contact | null = contact,
  ) => decideStep({ execution, revision, workflow: flow, contact: target, now });

  it('given a DELAY, then the execution waits on a timer until the delay ends', () => {
    const [waiting] = events(decide(given(started('delay'))));
    expect(waiting).toEqual({
      type: 'ExecutionWaiting',
      data: {
        stepId: 'delay',
        stepType: 'DELAY',
        eventName: null,
        until: '2026-03-01T12:05:00.000Z',
        timerId: expect.any(String) as string,
        since: at,
      },
    });
  });

  it('given the same visit decided twice, then the same timer; another visit, another timer', () => {
    const timerOf = (revision: number) =>
      (events(decide(given(started('delay')), revision))[0]!.data as { timerId: string }).timerId;
    expect(timerOf(0)).toBe(timerOf(0));
    expect(timerOf(0)).not.toBe(timerOf(3));
  });

  it('given a WAIT_FOR_EVENT with a timeout, then it waits for the event name until the timeout', () => {
    expect(events(decide(given(started('wait'))))).toEqual([
      {
        type: 'ExecutionWaiting',
        data: {
          stepId: 'wait',
          stepType: 'WAIT_FOR_EVENT',
          eventName: 'paid',
          until: '2026-03-01T10:15:00.000Z',
          timerId: expect.any(String) as string,
          since: at,
        },
      },
    ]);
  });

  it('given a CONDITION, then the branch the contact takes', () => {
    expect(events(decide(given(started('check'))))).toEqual([
      stepDone('check', 'CONDITION', 'yes', 'send'),
    ]);
    const free = { ...contact, data: { plan: 'free' } };
    expect(events(decide(given(started('check')), 0, free))).toEqual([
      stepDone('check', 'CONDITION', 'no', 'exit'),
    ]);
  });

  it('given a SEND_EMAIL, then an email effect whose id is derived from the visit', () => {
    const decision = decide(given(started('send')), 4);
    expect(decision).toMatchObject({
      kind: 'effect',
      effect: {
        type: 'SEND_EMAIL',
        request: {
          projectId: 'p1',
          workflowId: 'w1',
          executionId: 'x1',
          templateId: 't1',
          contactId: 'c1',
          context: { plan: 'pro' },
        },
      },
    });
    const again = decide(given(started('send')), 4);
    const later = decide(given(started('send')), 9);
    const idOf = (made: StepDecision) =>
      made.kind === 'effect' && made.effect.type === 'SEND_EMAIL'
        ? made.effect.request.emailId
        : '';
    expect(idOf(again)).toBe(idOf(decision));
    expect(idOf(later)).not.toBe(idOf(decision));
  });

  it('given an EXIT, then ExecutionExited with its reason', () => {
    expect(events(decide(given(started('exit'))))).toEqual([
      { type: 'ExecutionExited', data: { ...ending, stepId: 'exit', reason: 'Not a fit' } },
    ]);
  });

  it('given no current step, then ExecutionCompleted', () => {
    expect(events(decide(given(started(null))))).toEqual([
      { type: 'ExecutionCompleted', data: ending },
    ]);
  });

  it('given a deleted contact, then ExecutionExited; a deleted workflow or step, then ExecutionFailed', () => {
    expect(events(decide(given(started('send')), 0, null))).toEqual([
      {
        type: 'ExecutionExited',
        data: { ...ending, stepId: 'send', reason: 'The contact was deleted' },
      },
    ]);
    const gone = workflow([], [], true);
    const execution = given(started('send'));
    expect(events(decideStep({ execution, revision: 0, workflow: gone, contact, now }))).toEqual([
      {
        type: 'ExecutionFailed',
        data: { ...ending, stepId: 'send', error: 'The workflow was deleted' },
      },
    ]);
    const withoutStep = workflow([], []);
    expect(
      events(decideStep({ execution, revision: 0, workflow: withoutStep, contact, now })),
    ).toEqual([
      {
        type: 'ExecutionFailed',
        data: { ...ending, stepId: 'send', error: 'The step no longer exists' },
      },
    ]);
  });

  it('given a WEBHOOK, then a request whose body sees the contact, its data and the context', () => {
    const hook = workflow(
      [
        step('hook', 'WEBHOOK', {
          url: 'https://hooks.example.org/in',
          method: 'PUT',
          body: { email: '{{ contact.email }}' },
        }),
      ],
      [transition('trigger', 'hook')],
    );
    const decision = decideStep({
      execution: given(started('hook')),
      revision: 2,
      workflow: hook,
      contact,
      now,
    });
    expect(decision).toMatchObject({
      kind: 'effect',
      effect: {
        type: 'WEBHOOK',
        url: 'https://hooks.example.org/in',
        method: 'PUT',
        bodySource: '{"email":"{{ contact.email }}"}',
        scope: {
          contact: { id: 'c1', email: 'ada@example.org' },
          data: { plan: 'pro' },
          event: { plan: 'pro' },
        },
        idempotencyKey: expect.any(String) as string,
      },
    });
  });

  it('given an UPDATE_CONTACT that unsubscribes, then a contact update keeping the rules', () => {
    const update = workflow(
      [
        step('update', 'UPDATE_CONTACT', {
          updates: { plan: 'free' },
          subscriptionAction: 'unsubscribe',
        }),
      ],
      [transition('trigger', 'update')],
    );
    const decision = decideStep({
      execution: given(started('update')),
      revision: 0,
      workflow: update,
      contact,
      now,
    });
    expect(decision).toEqual({
      kind: 'effect',
      step: expect.objectContaining({ id: 'update' }) as Step,
      effect: {
        type: 'UPDATE_CONTACT',
        projectId: 'p1',
        email: 'ada@example.org',
        updates: { plan: 'free' },
        subscribed: false,
        currentlySubscribed: true,
      },
    });
  });
});

describe('recording an effect', () => {
  const flow = workflow(
    [
      step('send', 'SEND_EMAIL', { templateId: 't1' }),
      step('hook', 'WEBHOOK', { url: 'https://x.example/' }),
    ],
    [transition('trigger', 'send'), transition('send', 'hook')],
  );
  const send = step('send', 'SEND_EMAIL');
  const hook = step('hook', 'WEBHOOK');
  const execution = given(started('send'));

  it('when the email was queued, then the step is sent and the execution moves on', () => {
    const outcome = { type: 'SEND_EMAIL', emailId: 'm1', skipped: false, reason: null } as const;
    expect(recordEffect(execution, flow, send, outcome, now)).toEqual([
      stepDone('send', 'SEND_EMAIL', 'sent', 'hook', { emailId: 'm1' }),
    ]);
  });

  it('when the email was skipped (unsubscribed), then the step is skipped with the reason', () => {
    const outcome = {
      type: 'SEND_EMAIL',
      emailId: 'm1',
      skipped: true,
      reason: 'unsubscribed',
    } as const;
    expect(recordEffect(execution, flow, send, outcome, now)).toEqual([
      stepDone('send', 'SEND_EMAIL', 'skipped', 'hook', { emailId: 'm1', reason: 'unsubscribed' }),
    ]);
  });

  it('when a webhook answered, then delivered below 400 and rejected from 400, with the answer', () => {
    const at = given(started('hook'));
    expect(recordEffect(at, flow, hook, { type: 'WEBHOOK', status: 204, body: '' }, now)).toEqual([
      stepDone('hook', 'WEBHOOK', 'delivered', null, { status: 204, body: '' }),
    ]);
    expect(
      recordEffect(at, flow, hook, { type: 'WEBHOOK', status: 404, body: 'no' }, now)[0],
    ).toMatchObject({ data: { outcome: 'rejected', output: { status: 404, body: 'no' } } });
  });

  it('when the effect was refused, then ExecutionFailed with the error', () => {
    const refused = { type: 'refused', error: 'Template not found' } as const;
    expect(recordEffect(execution, flow, send, refused, now)).toEqual([
      { type: 'ExecutionFailed', data: { ...ending, stepId: 'send', error: 'Template not found' } },
    ]);
  });
});

describe('waiting', () => {
  const flow = workflow(
    [
      step('delay', 'DELAY', { amount: 1, unit: 'minutes' }),
      step('wait', 'WAIT_FOR_EVENT', { eventName: 'paid', timeout: 60 }),
      step('thanks', 'SEND_EMAIL', { templateId: 't1' }),
      step('nudge', 'SEND_EMAIL', { templateId: 't2' }),
    ],
    [
      transition('trigger', 'delay'),
      transition('delay', 'wait'),
      transition('wait', 'thanks', { waitOutcome: 'EVENT' }),
      transition('wait', 'nudge', { waitOutcome: 'TIMEOUT' }),
    ],
  );
  const waitingAt = (stepId: 'delay' | 'wait', timerId: string): ExecutionEvent => ({
    type: 'ExecutionWaiting',
    data: {
      stepId,
      stepType: stepId === 'delay' ? 'DELAY' : 'WAIT_FOR_EVENT',
      eventName: stepId === 'wait' ? 'paid' : null,
      until: at,
      timerId,
      since: startedAt,
    },
  });
  const paid = { eventId: 'e9', contactId: 'c1', name: 'paid', data: { amount: 42 } };

  it('given a DELAY, when its timer is due, then the delay elapsed towards the next step', () => {
    const execution = given(started('delay'), waitingAt('delay', 'timer-1'));
    expect(decideTimerDue(execution, 'timer-1', flow, now)).toEqual([
      stepDone('delay', 'DELAY', 'elapsed', 'wait'),
    ]);
  });

  it('given a DELAY, when another timer (an earlier wait, a double fire) is due, then nothing', () => {
    const execution = given(started('delay'), waitingAt('delay', 'timer-1'));
    expect(decideTimerDue(execution, 'timer-0', flow, now)).toEqual([]);
    const elapsed = given(
      started('delay'),
      waitingAt('delay', 'timer-1'),
      stepDone('delay', 'DELAY', 'elapsed', 'wait'),
    );
    expect(decideTimerDue(elapsed, 'timer-1', flow, now)).toEqual([]);
  });

  it('given a WAIT_FOR_EVENT, when the event comes first, then EVENT with its data; the timeout later changes nothing', () => {
    const execution = given(started('wait'), waitingAt('wait', 'timer-2'));
    const resumed = decideAwaitedEvent(execution, paid, flow, now);
    expect(resumed).toEqual([
      stepDone('wait', 'WAIT_FOR_EVENT', 'EVENT', 'thanks', {
        eventId: 'e9',
        data: { amount: 42 },
      }),
    ]);
    const after = given(started('wait'), waitingAt('wait', 'timer-2'), ...resumed);
    expect(after.context).toEqual({ plan: 'pro', amount: 42 });
    expect(decideTimerDue(after, 'timer-2', flow, now)).toEqual([]);
  });

  it('given a WAIT_FOR_EVENT, when the timeout comes first, then TIMEOUT; the event later changes nothing', () => {
    const execution = given(started('wait'), waitingAt('wait', 'timer-2'));
    const timedOut = decideTimerDue(execution, 'timer-2', flow, now);
    expect(timedOut).toEqual([stepDone('wait', 'WAIT_FOR_EVENT', 'TIMEOUT', 'nudge')]);
    const after = given(started('wait'), waitingAt('wait', 'timer-2'), ...timedOut);
    expect(decideAwaitedEvent(after, paid, flow, now)).toEqual([]);
  });

  it('given a WAIT_FOR_EVENT, when another name or another contact has the event, then nothing', () => {
    const execution = given(started('wait'), waitingAt('wait', 'timer-2'));
    expect(decideAwaitedEvent(execution, { ...paid, name: 'visited' }, flow, now)).toEqual([]);
    expect(decideAwaitedEvent(execution, { ...paid, contactId: 'c2' }, flow, now)).toEqual([]);
    const delaying = given(started('delay'), waitingAt('delay', 'timer-1'));
    expect(decideAwaitedEvent(delaying, paid, flow, now)).toEqual([]);
  });
});

describe('cancelling', () => {
  it('given an active execution, then ExecutionCancelled; given an ended one, then nothing', () => {
    const running = given(started('delay'));
    expect(decideCancel(running, now)).toEqual([{ type: 'ExecutionCancelled', data: ending }]);
    const ended = given(started(null), { type: 'ExecutionCompleted', data: ending });
    expect(decideCancel(ended, now)).toEqual([]);
  });
});
