/**
 * The execution decider (spec part 3, "Workflow" execution states; API reference, "Workflow step
 * config"): what an execution does next, decided from its state, its workflow, its contact and
 * the clock. Pure: the engine loads the inputs, carries out the effects (an email, a webhook, a
 * contact update) and appends the events.
 *
 * A step without an effect is decided outright. A step with one is decided in two halves: the
 * effect to carry out ({@link decideStep}), then the record of its outcome
 * ({@link recordEffect}), appended at the revision the first half was decided on.
 */
import type { ContactViewDocument, QueueWorkflowEmailInput } from '@stamp/contracts';
import { derivedId } from '@stamp/platform';

import type { Step, WorkflowState } from '../workflows/events.ts';
import { nextStepOf } from '../workflows/graph.ts';
import { UNIT_SECONDS } from '../workflows/steps.ts';
import { type Condition, evaluateCondition } from './condition.ts';
import type { ExecutionEvent, HistoryEntry, KnownExecution } from './events.ts';

/** A WEBHOOK step's request, its body still a Liquid source (rendered when carried out). */
export interface WebhookEffect {
  type: 'WEBHOOK';
  url: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  headers: Record<string, string>;
  /** Liquid source of the body; null for none. */
  bodySource: string | null;
  /** Variables of the body: `contact`, `data`, `event` (the context). */
  scope: Record<string, unknown>;
  /** Sent as `Idempotency-Key`: the same on a repeat of this step's visit. */
  idempotencyKey: string;
}

/** An effect of a step, carried out by the engine before its record is appended. */
export type StepEffect =
  | { type: 'SEND_EMAIL'; request: Omit<QueueWorkflowEmailInput, 'correlationId'> }
  | WebhookEffect
  | {
      type: 'UPDATE_CONTACT';
      projectId: string;
      email: string;
      updates: Record<string, string | number | boolean | null>;
      /** An explicit subscription; absent keeps the contact's. */
      subscribed?: boolean;
      /** The contact's subscription, for the rules of an upsert. */
      currentlySubscribed: boolean;
    };

/** What {@link decideStep} decides: events now, or an effect first. */
export type StepDecision =
  { kind: 'events'; events: ExecutionEvent[] } | { kind: 'effect'; step: Step; effect: StepEffect };

/** How an effect turned out. */
export type EffectOutcome =
  /** An email: queued (or queued earlier), or skipped with the reason. */
  | { type: 'SEND_EMAIL'; emailId: string; skipped: boolean; reason: string | null }
  /** A webhook's final answer (a 4xx is an answer). */
  | { type: 'WEBHOOK'; status: number; body: string }
  | { type: 'UPDATE_CONTACT' }
  /** The effect was refused (a 4xx of the service, an undeliverable webhook). */
  | { type: 'refused'; error: string };

/** Everything {@link decideStep} reads. */
export interface StepInput {
  execution: KnownExecution;
  /** Revision of the execution's last event: the visit of the step it decides. */
  revision: number;
  workflow: WorkflowState;
  /** The contact in the contacts view; null when it was deleted. */
  contact: (ContactViewDocument & { _id: string }) | null;
  now: Date;
}

const iso = (now: Date): string => now.toISOString();

const ending = (execution: KnownExecution, now: Date) => ({
  workflowId: execution.workflowId,
  contactId: execution.contactId,
  completedAt: iso(now),
});

/** ExecutionFailed at `stepId` with `error`. */
const failed = (execution: KnownExecution, stepId: string | null, error: string, now: Date) =>
  ({ type: 'ExecutionFailed', data: { ...ending(execution, now), stepId, error } }) as const;

/** ExecutionStepCompleted of `step`, with what it led to. */
export function stepCompleted(
  execution: KnownExecution,
  step: Pick<Step, 'id' | 'type'>,
  outcome: string,
  output: Record<string, unknown> | null,
  nextStepId: string | null,
  now: Date,
): ExecutionEvent {
  const entry: HistoryEntry = {
    stepId: step.id,
    stepType: step.type,
    outcome,
    output,
    startedAt: execution.stepStartedAt,
    completedAt: iso(now),
  };
  return { type: 'ExecutionStepCompleted', data: { ...entry, nextStepId } };
}

/** The ISO time `seconds` after `now`. */
const after = (now: Date, seconds: number): string =>
  new Date(now.getTime() + seconds * 1000).toISOString();

/**
 * Decides the step a RUNNING execution is at. No current step completes the execution; a deleted
 * workflow or step fails it; a deleted contact exits it. Ids of effects and timers are derived
 * from the execution, the step and `revision`, so deciding the same visit again (after a crash
 * between an effect and its record) names the same email, webhook key and timer.
 */
export function decideStep(input: StepInput): StepDecision {
  const { execution, workflow, contact, now } = input;
  const events = (...list: ExecutionEvent[]): StepDecision => ({ kind: 'events', events: list });
  const stepId = execution.currentStepId;
  if (stepId === null) return events({ type: 'ExecutionCompleted', data: ending(execution, now) });
  if (!workflow.exists || workflow.deleted)
    return events(failed(execution, stepId, 'The workflow was deleted', now));
  const step = workflow.steps.find((candidate) => candidate.id === stepId);
  if (step === undefined)
    return events(failed(execution, stepId, 'The step no longer exists', now));
  if (contact === null) {
    const reason = 'The contact was deleted';
    return events({ type: 'ExecutionExited', data: { ...ending(execution, now), stepId, reason } });
  }
  const next = (outcome: Parameters<typeof nextStepOf>[2] = {}): string | null =>
    nextStepOf(workflow.transitions, step.id, outcome);
  const visit = `${execution.id}:${step.id}:${input.revision}`;
  const config = step.config;
  switch (step.type) {
    case 'TRIGGER':
      return events(stepCompleted(execution, step, 'triggered', null, next(), now));
    case 'SEND_EMAIL': {
      const recipient = config.recipient as
        { type: 'CONTACT' | 'CUSTOM'; customEmail?: string } | undefined;
      return {
        kind: 'effect',
        step,
        effect: {
          type: 'SEND_EMAIL',
          request: {
            projectId: execution.projectId,
            workflowId: execution.workflowId,
            executionId: execution.id,
            emailId: derivedId(`workflowEmail:${visit}`),
            templateId: String(config.templateId),
            contactId: execution.contactId,
            ...(recipient?.type === 'CUSTOM' && recipient.customEmail !== undefined
              ? { customEmail: recipient.customEmail }
              : {}),
            context: execution.context,
          },
        },
      };
    }
    case 'DELAY': {
      const seconds =
        Number(config.amount) * UNIT_SECONDS[config.unit as keyof typeof UNIT_SECONDS];
      return events({
        type: 'ExecutionWaiting',
        data: {
          stepId: step.id,
          stepType: 'DELAY',
          eventName: null,
          until: after(now, seconds),
          timerId: derivedId(`workflowTimer:${visit}`),
          since: iso(now),
        },
      });
    }
    case 'WAIT_FOR_EVENT': {
      const timeout = typeof config.timeout === 'number' ? config.timeout : null;
      return events({
        type: 'ExecutionWaiting',
        data: {
          stepId: step.id,
          stepType: 'WAIT_FOR_EVENT',
          eventName: String(config.eventName),
          until: timeout === null ? null : after(now, timeout),
          timerId: timeout === null ? null : derivedId(`workflowTimer:${visit}`),
          since: iso(now),
        },
      });
    }
    case 'CONDITION': {
      const holds = evaluateCondition(config as unknown as Condition, contact, execution.context);
      const branch = holds ? 'yes' : 'no';
      return events(stepCompleted(execution, step, branch, null, next({ branch }), now));
    }
    case 'WEBHOOK':
      return {
        kind: 'effect',
        step,
        effect: {
          type: 'WEBHOOK',
          url: String(config.url),
          method: (config.method as WebhookEffect['method'] | undefined) ?? 'POST',
          headers: (config.headers as Record<string, string> | undefined) ?? {},
          bodySource:
            config.body === undefined
              ? null
              : typeof config.body === 'string'
                ? config.body
                : JSON.stringify(config.body),
          scope: {
            contact: { ...contact, id: contact._id },
            data: contact.data,
            event: execution.context,
          },
          idempotencyKey: derivedId(`workflowWebhook:${visit}`),
        },
      };
    case 'UPDATE_CONTACT': {
      const action = config.subscriptionAction;
      return {
        kind: 'effect',
        step,
        effect: {
          type: 'UPDATE_CONTACT',
          projectId: execution.projectId,
          email: contact.email,
          updates:
            (config.updates as Record<string, string | number | boolean | null> | undefined) ?? {},
          ...(action === 'subscribe' ? { subscribed: true } : {}),
          ...(action === 'unsubscribe' ? { subscribed: false } : {}),
          currentlySubscribed: contact.subscribed,
        },
      };
    }
    case 'EXIT': {
      const reason =
        typeof config.reason === 'string' && config.reason !== '' ? config.reason : 'EXIT step';
      return events({
        type: 'ExecutionExited',
        data: { ...ending(execution, now), stepId: step.id, reason },
      });
    }
  }
}

/**
 * Records how the effect of `step` turned out: the step completes (`sent` or `skipped`,
 * `delivered` or `rejected`, `updated`) and the execution moves to the step after it, or the
 * execution fails when the effect was refused.
 */
export function recordEffect(
  execution: KnownExecution,
  workflow: WorkflowState,
  step: Step,
  outcome: EffectOutcome,
  now: Date,
): ExecutionEvent[] {
  const next = workflow.exists ? nextStepOf(workflow.transitions, step.id) : null;
  switch (outcome.type) {
    case 'refused':
      return [failed(execution, step.id, outcome.error, now)];
    case 'SEND_EMAIL': {
      const output = {
        emailId: outcome.emailId,
        ...(outcome.reason === null ? {} : { reason: outcome.reason }),
      };
      const result = outcome.skipped ? 'skipped' : 'sent';
      return [stepCompleted(execution, step, result, output, next, now)];
    }
    case 'WEBHOOK': {
      const result = outcome.status < 400 ? 'delivered' : 'rejected';
      const output = { status: outcome.status, body: outcome.body };
      return [stepCompleted(execution, step, result, output, next, now)];
    }
    case 'UPDATE_CONTACT':
      return [stepCompleted(execution, step, 'updated', null, next, now)];
  }
}

/**
 * Decides on a timer of a WAITING execution: the timer it waits for completes the wait (DELAY
 * `elapsed`, WAIT_FOR_EVENT `TIMEOUT`, each to its next step); every other timer (one fired twice,
 * one of an earlier wait) decides nothing.
 */
export function decideTimerDue(
  execution: KnownExecution,
  timerId: string,
  workflow: WorkflowState,
  now: Date,
): ExecutionEvent[] {
  const wait = execution.wait;
  if (execution.status !== 'WAITING' || wait === null || wait.timerId !== timerId) return [];
  const transitions = workflow.exists ? workflow.transitions : [];
  const step = { id: wait.stepId, type: wait.stepType };
  if (wait.stepType === 'DELAY')
    return [stepCompleted(execution, step, 'elapsed', null, nextStepOf(transitions, step.id), now)];
  const next = nextStepOf(transitions, step.id, { waitOutcome: 'TIMEOUT' });
  return [stepCompleted(execution, step, 'TIMEOUT', null, next, now)];
}

/** An event as a waiting execution sees it. */
export interface AwaitedEvent {
  eventId: string;
  contactId: string;
  name: string;
  data: Record<string, unknown>;
}

/**
 * Decides on an event for an execution: one WAITING for that event name of its own contact
 * completes its WAIT_FOR_EVENT step with outcome EVENT (the event's id and data as output; the
 * data joins the context) towards the EVENT transition; otherwise nothing.
 */
export function decideAwaitedEvent(
  execution: KnownExecution,
  event: AwaitedEvent,
  workflow: WorkflowState,
  now: Date,
): ExecutionEvent[] {
  const wait = execution.wait;
  if (execution.status !== 'WAITING' || wait?.stepType !== 'WAIT_FOR_EVENT') return [];
  if (wait.eventName !== event.name || execution.contactId !== event.contactId) return [];
  const transitions = workflow.exists ? workflow.transitions : [];
  const next = nextStepOf(transitions, wait.stepId, { waitOutcome: 'EVENT' });
  const output = { eventId: event.eventId, data: event.data };
  return [
    stepCompleted(execution, { id: wait.stepId, type: wait.stepType }, 'EVENT', output, next, now),
  ];
}

/** Decides a cancel: an active execution is CANCELLED; an ended one stays as it is. */
export function decideCancel(execution: KnownExecution, now: Date): ExecutionEvent[] {
  if (execution.status !== 'RUNNING' && execution.status !== 'WAITING') return [];
  return [{ type: 'ExecutionCancelled', data: ending(execution, now) }];
}
