/**
 * The execution engine (consumer group `workflows-engine`, topic `workflowExecution`): a process
 * manager on each execution stream. Every event of an execution that is still the last of its
 * stream decides the next one: run the current step (its effect, then its record, appended at the
 * revision the decision was made on), wait (a durable timer or an awaited event), or end.
 *
 * Replay safety (spec part 3; architecture brief, "Process managers"): a redelivered event that is
 * no longer the last of its stream decides nothing; two deciders on one revision cannot both
 * append; an email's id is derived from the execution, step and revision, so a step run again
 * after a crash between its effect and its record finds its email queued already; a webhook
 * repeated in that window carries the same `Idempotency-Key`.
 */
import {
  CONTACTS_VIEW,
  type ContactsApi,
  type ContactViewDocument,
  type WorkflowEmailsApi,
} from '@stamp/contracts';
import { ApiError } from '@stamp/http-kit';
import {
  decisionAppend,
  derivedId,
  type EventHandler,
  type EventStore,
  foldStream,
  type Logger,
  type RecordedEvent,
  type StreamAppend,
  type StreamCommands,
  type ViewDocument,
  type ViewStore,
  withRevisionRetry,
  WrongExpectedRevisionError,
} from '@stamp/platform';
import { Liquid } from 'liquidjs';

import type { Step, WorkflowEvent, WorkflowState } from '../workflows/events.ts';
import { nextStepOf } from '../workflows/graph.ts';
import { UNIT_SECONDS } from '../workflows/steps.ts';
import { type Condition, evaluateCondition } from './condition.ts';
import {
  enrollmentModel,
  enrollmentStream,
  type ExecutionEvent,
  executionModel,
  executionStream,
  type HistoryEntry,
  type KnownExecution,
  TERMINAL_EVENT_TYPES,
} from './events.ts';

/** Consumer group of the engine. */
export const WORKFLOWS_ENGINE_GROUP = 'workflows-engine';

/** A rendered WEBHOOK request. */
export interface WebhookCall {
  url: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  headers: Record<string, string>;
  body: string | null;
}

/**
 * Makes a WEBHOOK step's request (timeouts, retries and the private-address rule are the
 * caller's); answers the final status and body (a 4xx is an answer).
 * @throws Error when it could not be delivered.
 */
export type WebhookCaller = (
  call: WebhookCall,
  idempotencyKey: string,
) => Promise<{ status: number; body: string }>;

/** What the engine needs. */
export interface EngineDeps {
  store: EventStore;
  views: ViewStore;
  logger: Logger;
  workflows: StreamCommands<WorkflowState, WorkflowEvent>;
  sending: WorkflowEmailsApi;
  contacts: ContactsApi;
  webhook: WebhookCaller;
  now: () => Date;
}

const liquid = new Liquid({
  strictFilters: true,
  ownPropertyOnly: true,
  relativeReference: false,
  dynamicPartials: false,
  templates: {},
  cache: false,
  renderLimit: 1_000,
  memoryLimit: 10_000_000,
});

/** A decision: the execution's events, appended at the revision it was made on. */
type Decision = ExecutionEvent[];

const completed = (
  execution: KnownExecution,
  step: Step,
  outcome: string,
  output: Record<string, unknown> | null,
  nextStepId: string | null,
  now: Date,
): ExecutionEvent => {
  const entry: HistoryEntry = {
    stepId: step.id,
    stepType: step.type,
    outcome,
    output,
    startedAt: execution.stepStartedAt,
    completedAt: now.toISOString(),
  };
  return { type: 'ExecutionStepCompleted', data: { ...entry, nextStepId } };
};

const failed = (stepId: string | null, error: string, now: Date): ExecutionEvent => ({
  type: 'ExecutionFailed',
  data: { stepId, error, completedAt: now.toISOString() },
});

/** Runs the step the execution is at and decides what follows. */
async function runStep(
  deps: EngineDeps,
  execution: KnownExecution,
  revision: number,
  correlationId: string,
): Promise<Decision> {
  const now = deps.now();
  const stepId = execution.currentStepId;
  if (stepId === null)
    return [{ type: 'ExecutionCompleted', data: { completedAt: now.toISOString() } }];
  const workflow = (await deps.workflows.load(execution.workflowId)).state;
  if (!workflow.exists || workflow.deleted)
    return [failed(stepId, 'The workflow was deleted', now)];
  const step = workflow.steps.find((candidate) => candidate.id === stepId);
  if (step === undefined) return [failed(stepId, 'The step no longer exists', now)];
  const next = (outcome: Parameters<typeof nextStepOf>[2] = {}): string | null =>
    nextStepOf(workflow.transitions, step.id, outcome);
  const contact = await deps.views
    .collection<ContactViewDocument & ViewDocument>(CONTACTS_VIEW)
    .findOne({ _id: execution.contactId, projectId: execution.projectId });
  if (contact === null) {
    return [
      {
        type: 'ExecutionExited',
        data: { stepId, reason: 'The contact was deleted', completedAt: now.toISOString() },
      },
    ];
  }
  const visit = `${execution.id}:${step.id}:${revision}`;
  const config = step.config;
  switch (step.type) {
    case 'TRIGGER':
      return [completed(execution, step, 'triggered', null, next(), now)];
    case 'SEND_EMAIL': {
      const recipient = config.recipient as
        { type: 'CONTACT' | 'CUSTOM'; customEmail?: string } | undefined;
      try {
        const result = await deps.sending.queueWorkflowEmail({
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
          correlationId,
        });
        const outcome = result.outcome === 'skipped' ? 'skipped' : 'sent';
        return [
          completed(
            execution,
            step,
            outcome,
            {
              emailId: result.emailId,
              ...(result.reason === null ? {} : { reason: result.reason }),
            },
            next(),
            now,
          ),
        ];
      } catch (error) {
        if (error instanceof ApiError) return [failed(step.id, error.message, now)];
        throw error;
      }
    }
    case 'DELAY': {
      const seconds =
        Number(config.amount) * UNIT_SECONDS[config.unit as keyof typeof UNIT_SECONDS];
      return [
        {
          type: 'ExecutionWaiting',
          data: {
            stepId: step.id,
            stepType: 'DELAY',
            eventName: null,
            until: new Date(now.getTime() + seconds * 1000).toISOString(),
            timerId: derivedId(`workflowTimer:${visit}`),
            since: now.toISOString(),
          },
        },
      ];
    }
    case 'WAIT_FOR_EVENT': {
      const timeout = typeof config.timeout === 'number' ? config.timeout : null;
      return [
        {
          type: 'ExecutionWaiting',
          data: {
            stepId: step.id,
            stepType: 'WAIT_FOR_EVENT',
            eventName: String(config.eventName),
            until: timeout === null ? null : new Date(now.getTime() + timeout * 1000).toISOString(),
            timerId: timeout === null ? null : derivedId(`workflowTimer:${visit}`),
            since: now.toISOString(),
          },
        },
      ];
    }
    case 'CONDITION': {
      const holds = evaluateCondition(config as unknown as Condition, contact, execution.context);
      const branch = holds ? 'yes' : 'no';
      return [completed(execution, step, branch, null, next({ branch }), now)];
    }
    case 'WEBHOOK': {
      const scope = {
        contact: { ...contact, id: contact._id },
        data: contact.data,
        event: execution.context,
      };
      const source =
        config.body === undefined
          ? null
          : typeof config.body === 'string'
            ? config.body
            : JSON.stringify(config.body);
      try {
        const body = source === null ? null : String(await liquid.parseAndRender(source, scope));
        const answer = await deps.webhook(
          {
            url: String(config.url),
            method: (config.method as WebhookCall['method'] | undefined) ?? 'POST',
            headers: (config.headers as Record<string, string> | undefined) ?? {},
            body,
          },
          derivedId(`workflowWebhook:${visit}`),
        );
        return [
          completed(
            execution,
            step,
            answer.status < 400 ? 'delivered' : 'rejected',
            { status: answer.status, body: answer.body },
            next(),
            now,
          ),
        ];
      } catch (error) {
        return [failed(step.id, error instanceof Error ? error.message : String(error), now)];
      }
    }
    case 'UPDATE_CONTACT': {
      const action = config.subscriptionAction;
      const updates =
        (config.updates as Record<string, string | number | boolean | null> | undefined) ?? {};
      try {
        await deps.contacts.upsertRecipient({
          projectId: execution.projectId,
          email: contact.email,
          data: updates,
          ...(action === 'subscribe' ? { subscribed: true } : {}),
          ...(action === 'unsubscribe' ? { subscribed: false } : {}),
          defaultSubscribed: contact.subscribed,
          correlationId,
        });
      } catch (error) {
        if (error instanceof ApiError) return [failed(step.id, error.message, now)];
        throw error;
      }
      return [completed(execution, step, 'updated', null, next(), now)];
    }
    case 'EXIT':
      return [
        {
          type: 'ExecutionExited',
          data: {
            stepId: step.id,
            reason:
              typeof config.reason === 'string' && config.reason !== ''
                ? config.reason
                : 'EXIT step',
            completedAt: now.toISOString(),
          },
        },
      ];
  }
}

/** What an event that is the last of its execution's stream leads to. */
async function decideOn(
  deps: EngineDeps,
  execution: KnownExecution,
  event: RecordedEvent,
  correlationId: string,
): Promise<Decision> {
  if (execution.status === 'WAITING') {
    const wait = execution.wait;
    if (event.type !== 'ExecutionTimerDue' || wait === null) return [];
    if ((event.data as { timerId: string }).timerId !== wait.timerId) return [];
    const workflow = (await deps.workflows.load(execution.workflowId)).state;
    const transitions = workflow.exists ? workflow.transitions : [];
    const step: Step = {
      id: wait.stepId,
      type: wait.stepType,
      name: '',
      config: {},
      position: null,
    };
    return wait.stepType === 'DELAY'
      ? [
          completed(
            execution,
            step,
            'elapsed',
            null,
            nextStepOf(transitions, wait.stepId),
            deps.now(),
          ),
        ]
      : [
          completed(
            execution,
            step,
            'TIMEOUT',
            null,
            nextStepOf(transitions, wait.stepId, { waitOutcome: 'TIMEOUT' }),
            deps.now(),
          ),
        ];
  }
  if (execution.status !== 'RUNNING') return [];
  return await runStep(deps, execution, event.revision, correlationId);
}

/**
 * The appends of a decision: the execution's events at `revision`, and the end of the contact's
 * enrollment when the decision ends the execution (atomically, in one append).
 */
export async function decisionAppends(
  store: EventStore,
  execution: KnownExecution,
  revision: number,
  events: readonly ExecutionEvent[],
  correlationId: string,
): Promise<StreamAppend[]> {
  const metadata = {
    projectId: execution.projectId,
    correlationId,
    subjectId: execution.contactId,
  };
  const appends = [decisionAppend(executionStream(execution.id), revision, events, metadata)];
  if (events.some((event) => TERMINAL_EVENT_TYPES.has(event.type))) {
    const streamId = enrollmentStream(execution.workflowId, execution.contactId);
    const recorded = await store.readStream(streamId);
    const enrollment = foldStream(enrollmentModel, recorded);
    if (enrollment.active === execution.id) {
      appends.push(
        decisionAppend(
          streamId,
          recorded[recorded.length - 1]?.revision ?? -1,
          [{ type: 'EnrollmentEnded', data: { executionId: execution.id } }],
          metadata,
        ),
      );
    }
  }
  return appends;
}

/** The engine's handler. */
export function executionEngine(deps: EngineDeps): EventHandler {
  return async (event: RecordedEvent) => {
    if (!executionModel.types.has(event.type)) return;
    await withRevisionRetry(async () => {
      const recorded = await deps.store.readStream(event.streamId);
      const last = recorded[recorded.length - 1];
      // Only the last event decides; an erased execution (its contact was deleted) runs no more.
      if (last?.id !== event.id || recorded.some((candidate) => candidate.erased === true)) return;
      const execution = foldStream(executionModel, recorded);
      if (!execution.exists) return;
      const correlationId = event.metadata.correlationId ?? event.id;
      const decision = await decideOn(deps, execution, event, correlationId);
      if (decision.length === 0) return;
      try {
        await deps.store.append(
          await decisionAppends(deps.store, execution, last.revision, decision, correlationId),
        );
      } catch (error) {
        // The execution moved meanwhile (an awaited event, a cancel): its new last event decides.
        if (error instanceof WrongExpectedRevisionError && error.streamId === event.streamId)
          return;
        throw error;
      }
    });
  };
}
