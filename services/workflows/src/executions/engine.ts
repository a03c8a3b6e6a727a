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
  CONTACT_STREAM_CATEGORY,
  CONTACTS_VIEW,
  type ContactsApi,
  type ContactViewDocument,
  type WorkflowEmailsApi,
} from '@stamp/contracts';
import { ApiError } from '@stamp/http-kit';
import {
  decisionAppend,
  type EventHandler,
  type EventStore,
  foldStream,
  type Logger,
  renderTemplate,
  type RecordedEvent,
  type StreamAppend,
  type StreamCommands,
  type ViewDocument,
  type ViewStore,
  withRevisionRetry,
  WrongExpectedRevisionError,
} from '@stamp/platform';

import type { WorkflowEvent, WorkflowState } from '../workflows/events.ts';
import {
  decideStep,
  decideTimerDue,
  type EffectOutcome,
  recordEffect,
  type StepEffect,
} from './decide.ts';
import {
  enrollmentModel,
  enrollmentStream,
  type ExecutionEvent,
  executionModel,
  executionStream,
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

/** Carries out a step's effect and tells how it turned out. */
async function carryOut(
  deps: EngineDeps,
  effect: StepEffect,
  correlationId: string,
): Promise<EffectOutcome> {
  try {
    switch (effect.type) {
      case 'SEND_EMAIL': {
        const result = await deps.sending.queueWorkflowEmail({ ...effect.request, correlationId });
        const skipped = result.outcome === 'skipped';
        return { type: 'SEND_EMAIL', emailId: result.emailId, skipped, reason: result.reason };
      }
      case 'WEBHOOK': {
        const body =
          effect.bodySource === null
            ? null
            : await renderTemplate(effect.bodySource, 'text', effect.scope);
        const { url, method, headers } = effect;
        const answer = await deps.webhook({ url, method, headers, body }, effect.idempotencyKey);
        return { type: 'WEBHOOK', status: answer.status, body: answer.body };
      }
      case 'UPDATE_CONTACT':
        await deps.contacts.upsertRecipient({
          projectId: effect.projectId,
          email: effect.email,
          data: effect.updates,
          ...(effect.subscribed === undefined ? {} : { subscribed: effect.subscribed }),
          defaultSubscribed: effect.currentlySubscribed,
          correlationId,
        });
        return { type: 'UPDATE_CONTACT' };
    }
  } catch (error) {
    // A refusal of the other service, or a webhook that could not be delivered (or rendered).
    if (error instanceof ApiError || effect.type === 'WEBHOOK') {
      return { type: 'refused', error: error instanceof Error ? error.message : String(error) };
    }
    throw error;
  }
}

/** How long the engine waits for a new contact to reach the contacts view, ms. */
const CONTACT_VIEW_PATIENCE_MS = 5000;

/**
 * The execution's contact from the contacts view; null when the contact was deleted (its stream
 * is gone or ends deleted). A contact that exists but is not in the view yet (the view lags the
 * event that created it and started the execution) is waited for.
 * @throws Error when it is still not in the view after {@link CONTACT_VIEW_PATIENCE_MS}: the
 *   event is handled again later.
 */
async function contactOf(
  deps: EngineDeps,
  execution: KnownExecution,
): Promise<(ContactViewDocument & ViewDocument) | null> {
  const contacts = deps.views.collection<ContactViewDocument & ViewDocument>(CONTACTS_VIEW);
  const find = () => contacts.findOne({ _id: execution.contactId, projectId: execution.projectId });
  const found = await find();
  if (found !== null) return found;
  const stream = await deps.store.readStream(`${CONTACT_STREAM_CATEGORY}-${execution.contactId}`);
  const last = stream[stream.length - 1];
  if (last === undefined || last.type === 'ContactDeleted' || last.erased === true) return null;
  const deadline = Date.now() + CONTACT_VIEW_PATIENCE_MS;
  while (Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    const projected = await find();
    if (projected !== null) return projected;
  }
  throw new Error(`contact ${execution.contactId} is not in the contacts view yet`);
}

/** What an event that is the last of its execution's stream leads to. */
async function decideOn(
  deps: EngineDeps,
  execution: KnownExecution,
  event: RecordedEvent,
  correlationId: string,
): Promise<ExecutionEvent[]> {
  if (execution.status === 'WAITING') {
    if (event.type !== 'ExecutionTimerDue') return [];
    const workflow = (await deps.workflows.load(execution.workflowId)).state;
    const { timerId } = event.data as { timerId: string };
    return decideTimerDue(execution, timerId, workflow, deps.now());
  }
  if (execution.status !== 'RUNNING') return [];
  const workflow = (await deps.workflows.load(execution.workflowId)).state;
  const contact = await contactOf(deps, execution);
  const decision = decideStep({
    execution,
    revision: event.revision,
    workflow,
    contact,
    now: deps.now(),
  });
  if (decision.kind === 'events') return decision.events;
  const outcome = await carryOut(deps, decision.effect, correlationId);
  return recordEffect(execution, workflow, decision.step, outcome, deps.now());
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
