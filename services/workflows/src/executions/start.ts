/**
 * How executions begin and resume: the start of an execution for a contact (re-entry rules on
 * the contact's enrollment stream), the trigger consumer (group `workflows-trigger`) that starts
 * executions on named events and resumes the executions waiting for them, and the names of the
 * system events (API reference, "System events and activity").
 */
import {
  CONTACT_STREAM_CATEGORY,
  EMAIL_STREAM_CATEGORY,
  type EngagementEventData,
  entityIdOf,
  SEGMENT_MEMBERSHIP_STREAM_CATEGORY,
  TRACKED_EVENT_STREAM_CATEGORY,
  INBOUND_EMAIL_STREAM_CATEGORY,
} from '@stamp/contracts';
import {
  decisionAppend,
  derivedId,
  type EventHandler,
  type EventStore,
  foldStream,
  type RecordedEvent,
  type StreamCommands,
  type ViewStore,
  withRevisionRetry,
  WrongExpectedRevisionError,
} from '@stamp/platform';

import type { KnownWorkflow, WorkflowEvent, WorkflowState } from '../workflows/events.ts';
import { nextStepOf } from '../workflows/graph.ts';
import { workflowsView } from '../workflows/views.ts';
import { decideAwaitedEvent } from './decide.ts';
import {
  enrollmentModel,
  enrollmentStream,
  type ExecutionEvent,
  executionModel,
  executionStream,
} from './events.ts';
import { executionsView } from './views.ts';

/** Consumer group of the trigger consumer. */
export const WORKFLOWS_TRIGGER_GROUP = 'workflows-trigger';

/** Topics the trigger consumer reads: every stream whose events have a name. */
export const TRIGGER_TOPICS = [
  TRACKED_EVENT_STREAM_CATEGORY,
  CONTACT_STREAM_CATEGORY,
  EMAIL_STREAM_CATEGORY,
  SEGMENT_MEMBERSHIP_STREAM_CATEGORY,
  INBOUND_EMAIL_STREAM_CATEGORY,
];

/** An event with a name, as workflows see it. */
export interface NamedEvent {
  eventId: string;
  projectId: string;
  contactId: string;
  name: string;
  data: Record<string, unknown>;
  /** The workflow whose SEND_EMAIL step caused it: it never starts that workflow again. */
  workflowId: string | null;
}

/**
 * The name and data of a recorded event (null: it has none): a tracked event's own name;
 * `contact.subscribed` / `contact.unsubscribed`; `email.sent` (EmailQueued), `email.delivery`
 * (EmailSent), `email.open` and `email.click` (a person's only, not automated ones),
 * `email.bounce` (EmailBounced), `email.complaint` (EmailComplained), `email.received`
 * (EmailReceived);
 * `segment.<slug>.entry` / `.exit`.
 */
export function namedEvent(event: RecordedEvent): NamedEvent | null {
  if (event.erased === true) return null;
  const projectId = event.metadata.projectId ?? '';
  const base = { eventId: event.id, projectId, workflowId: null };
  const data = event.data as Record<string, unknown>;
  switch (event.type) {
    case 'EventTracked':
      return {
        ...base,
        contactId: String(data.contactId),
        name: String(data.name),
        data: (data.data as Record<string, unknown> | undefined) ?? {},
      };
    case 'ContactSubscribed':
    case 'ContactUnsubscribed':
      return {
        ...base,
        contactId: entityIdOf(event.streamId),
        name: event.type === 'ContactSubscribed' ? 'contact.subscribed' : 'contact.unsubscribed',
        data: {},
      };
    case 'SegmentEntered':
    case 'SegmentExited':
      return {
        ...base,
        contactId: String(data.contactId),
        name: String(data.name),
        data: { segmentId: data.segmentId, segmentName: data.segmentName },
      };
    case 'EmailQueued': {
      const email = {
        emailId: data.emailId,
        subject: data.subject,
        from: (data.from as { email?: string } | undefined)?.email,
        ...(data.templateId === undefined ? {} : { templateId: data.templateId }),
        ...(data.campaignId === undefined ? {} : { campaignId: data.campaignId }),
        ...(data.workflowId === undefined ? {} : { workflowId: data.workflowId }),
      };
      return {
        ...base,
        contactId: String(data.contactId),
        name: 'email.sent',
        data: email,
        workflowId: typeof data.workflowId === 'string' ? data.workflowId : null,
      };
    }
    case 'EmailSent':
      return event.metadata.subjectId === undefined
        ? null
        : {
            ...base,
            contactId: event.metadata.subjectId,
            name: 'email.delivery',
            data: { emailId: entityIdOf(event.streamId) },
          };
    case 'EmailReceived':
      return {
        ...base,
        contactId: String(data.contactId),
        name: 'email.received',
        data: { inboundEmailId: data.inboundEmailId, subject: data.subject },
      };
    case 'EmailBounced':
    case 'EmailComplained':
      return event.metadata.subjectId === undefined
        ? null
        : {
            ...base,
            contactId: event.metadata.subjectId,
            name: event.type === 'EmailBounced' ? 'email.bounce' : 'email.complaint',
            data: { emailId: entityIdOf(event.streamId) },
          };
    case 'EmailOpened':
    case 'EmailClicked': {
      // Automated opens and clicks (privacy proxies, link scanners) are not engagement.
      const engagement = data as unknown as EngagementEventData;
      if (engagement.automated || event.metadata.subjectId === undefined) return null;
      const { emailId, subject, templateId, campaignId, workflowId } = engagement;
      return {
        ...base,
        contactId: event.metadata.subjectId,
        name: event.type === 'EmailOpened' ? 'email.open' : 'email.click',
        data: {
          emailId,
          subject,
          ...(templateId === undefined ? {} : { templateId }),
          ...(campaignId === undefined ? {} : { campaignId }),
          ...(workflowId === undefined ? {} : { workflowId }),
          ...(event.type === 'EmailClicked' ? { url: data.url } : {}),
        },
      };
    }
    default:
      return null;
  }
}

/** Result of {@link startExecution}. */
export interface StartResult {
  started: boolean;
  executionId: string;
  /** Why none was started: an execution is active, re-entry is off, or this one exists. */
  reason: 'active' | 'no_reentry' | 'exists' | null;
  position: number;
}

/**
 * Starts execution `executionId` of `workflow` for `contactId` unless the contact has an active
 * execution of it, or had one and re-entry is off: EnrollmentStarted on the contact's enrollment
 * stream (at the revision read) and ExecutionStarted on the new execution stream, in one append.
 * An existing execution stream (the same trigger event again) starts nothing.
 */
export async function startExecution(
  store: EventStore,
  command: {
    workflow: KnownWorkflow;
    contactId: string;
    context: Record<string, unknown>;
    triggerEventId: string | null;
    executionId: string;
    correlationId: string;
    now: Date;
  },
): Promise<StartResult> {
  const { workflow, contactId, executionId } = command;
  const streamId = enrollmentStream(workflow.id, contactId);
  return await withRevisionRetry(async () => {
    const recorded = await store.readStream(streamId);
    const enrollment = foldStream(enrollmentModel, recorded);
    const none = (reason: StartResult['reason']): StartResult => ({
      started: false,
      executionId,
      reason,
      position: 0,
    });
    if (enrollment.active !== null) return none('active');
    if (enrollment.enrolled && !workflow.settings.allowReentry) return none('no_reentry');
    const trigger = workflow.steps.find((step) => step.type === 'TRIGGER');
    const started: ExecutionEvent = {
      type: 'ExecutionStarted',
      data: {
        executionId,
        workflowId: workflow.id,
        projectId: workflow.projectId,
        contactId,
        context: command.context,
        triggerEventId: command.triggerEventId,
        nextStepId: trigger === undefined ? null : nextStepOf(workflow.transitions, trigger.id),
        startedAt: command.now.toISOString(),
      },
    };
    const metadata = {
      projectId: workflow.projectId,
      correlationId: command.correlationId,
      subjectId: contactId,
    };
    try {
      const { position } = await store.append([
        decisionAppend(
          streamId,
          recorded[recorded.length - 1]?.revision ?? -1,
          [
            {
              type: 'EnrollmentStarted',
              data: { executionId, workflowId: workflow.id, contactId },
            },
          ],
          metadata,
        ),
        decisionAppend(executionStream(executionId), -1, [started], metadata),
      ]);
      return { started: true, executionId, reason: null, position };
    } catch (error) {
      if (
        error instanceof WrongExpectedRevisionError &&
        error.streamId === executionStream(executionId)
      ) {
        return none('exists');
      }
      throw error;
    }
  });
}

/**
 * Resumes execution `executionId` when it waits for the event `named`: the WAIT_FOR_EVENT step
 * completes with outcome EVENT (the event's data as output), appended at the revision read. An
 * execution no longer waiting for it (its timeout came first, it was cancelled) is left as is.
 */
export async function resumeWaiting(
  store: EventStore,
  workflows: StreamCommands<WorkflowState, WorkflowEvent>,
  executionId: string,
  named: NamedEvent,
  now: Date,
): Promise<boolean> {
  return await withRevisionRetry(async () => {
    const recorded = await store.readStream(executionStream(executionId));
    const execution = foldStream(executionModel, recorded);
    if (!execution.exists) return false;
    const workflow = (await workflows.load(execution.workflowId)).state;
    const events = decideAwaitedEvent(execution, named, workflow, now);
    if (events.length === 0) return false;
    await store.append([
      decisionAppend(
        executionStream(executionId),
        recorded[recorded.length - 1]?.revision ?? -1,
        events,
        {
          projectId: execution.projectId,
          correlationId: named.eventId,
          subjectId: execution.contactId,
        },
      ),
    ]);
    return true;
  });
}

/** What the trigger consumer needs. */
export interface TriggerDeps {
  store: EventStore;
  views: ViewStore;
  workflows: StreamCommands<WorkflowState, WorkflowEvent>;
  /**
   * Resolves once the `workflowExecutions` view reflects log position `position` (false after
   * its own timeout): an execution that began waiting before an event is found by that event.
   */
  executionsReached: (position: number) => Promise<boolean>;
  now: () => Date;
}

/**
 * The trigger consumer's handler: for a named event, starts an execution (id derived from the
 * workflow and the event, so a redelivery starts none) of every enabled EVENT workflow of the
 * project listening for the name, then resumes the contact's executions waiting for it, found in
 * the executions view once that view has reached the event (an execution whose wait began before
 * the event is resumed by it; one whose wait began after it waits for the next).
 */
export function triggerHandler(deps: TriggerDeps): EventHandler {
  return async (event: RecordedEvent) => {
    const named = namedEvent(event);
    if (named === null || named.projectId === '') return;
    const listening = await workflowsView(deps.views).find({
      projectId: named.projectId,
      eventName: named.name,
      enabled: true,
      triggerType: 'EVENT',
    });
    for (const document of listening) {
      if (document._id === named.workflowId) continue;
      const workflow = (await deps.workflows.load(document._id)).state;
      if (!workflow.exists || workflow.deleted || !workflow.settings.enabled) continue;
      await startExecution(deps.store, {
        workflow,
        contactId: named.contactId,
        context: named.data,
        triggerEventId: named.eventId,
        executionId: derivedId(`workflowExecution:${workflow.id}:${named.eventId}`),
        correlationId: event.metadata.correlationId ?? named.eventId,
        now: deps.now(),
      });
    }
    // Executions wait for this name only in workflows with such a WAIT_FOR_EVENT step.
    const awaiting = await workflowsView(deps.views).findOne({
      projectId: named.projectId,
      waitEventNames: named.name,
    });
    if (awaiting === null) return;
    await deps.executionsReached(event.position);
    const waiting = await executionsView(deps.views).find({
      projectId: named.projectId,
      contactId: named.contactId,
      status: 'WAITING',
      waitingFor: named.name,
    });
    for (const execution of waiting) {
      await resumeWaiting(deps.store, deps.workflows, execution._id, named, deps.now());
    }
  };
}
