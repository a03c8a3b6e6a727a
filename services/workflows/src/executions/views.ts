/**
 * The `workflowExecutions` view (one document per execution, read also by activity through the
 * contracts), the `workflowTimers` view its waits fire from, their projection, and the resource
 * the routes answer.
 */
import { CONTACT_STREAM_CATEGORY, entityIdOf, WORKFLOW_EXECUTIONS_VIEW } from '@stamp/contracts';
import type {
  EventHandler,
  RecordedEvent,
  TimerDocument,
  ViewCollection,
  ViewDocument,
  ViewStore,
} from '@stamp/platform';

import {
  EXECUTION_CATEGORY,
  EXECUTION_EVENT_TYPES,
  type ExecutionEvent,
  type ExecutionState,
  evolveExecution,
  type ExecutionStatus,
  type HistoryEntry,
  type KnownExecution,
  type Wait,
} from './events.ts';

export { WORKFLOW_EXECUTIONS_VIEW };

/** Name of the view of pending wait timers (a `TimerDocument` collection). */
export const WORKFLOW_TIMERS_VIEW = 'workflowTimers';
/** Consumer group of the projection. */
export const EXECUTIONS_VIEW_GROUP = 'workflow-executions-view';
/** Topics of the projection: executions, and contacts (a deleted contact's executions go). */
export const EXECUTIONS_VIEW_TOPICS = [EXECUTION_CATEGORY, CONTACT_STREAM_CATEGORY];

/** A document of the `workflowExecutions` view (`_id` = execution id; dates ISO 8601). */
export interface ExecutionView extends ViewDocument {
  projectId: string;
  workflowId: string;
  contactId: string;
  status: ExecutionStatus;
  currentStepId: string | null;
  context: Record<string, unknown>;
  wait: Wait | null;
  /** The event a WAIT_FOR_EVENT waits for; null otherwise. */
  waitingFor: string | null;
  /** When the wait's timer is due; null otherwise. */
  nextRunAt: string | null;
  history: HistoryEntry[];
  stepStartedAt: string;
  startedAt: string;
  completedAt: string | null;
  exitReason: string | null;
  error: string | null;
  revision: number;
}

/** The executions view collection. */
export const executionsView = (views: ViewStore): ViewCollection<ExecutionView> =>
  views.collection<ExecutionView>(WORKFLOW_EXECUTIONS_VIEW);

const documentOf = (execution: KnownExecution, revision: number): ExecutionView => {
  const { id, ...fields } = execution;
  return {
    _id: id,
    projectId: fields.projectId,
    workflowId: fields.workflowId,
    contactId: fields.contactId,
    status: fields.status,
    currentStepId: fields.currentStepId,
    context: fields.context,
    wait: fields.wait,
    history: fields.history,
    stepStartedAt: fields.stepStartedAt,
    startedAt: fields.startedAt,
    completedAt: fields.completedAt,
    exitReason: fields.exitReason,
    error: fields.error,
    waitingFor: execution.wait?.eventName ?? null,
    nextRunAt: execution.wait?.until ?? null,
    revision,
  };
};

const stateOf = (document: ExecutionView): KnownExecution => ({
  exists: true,
  id: document._id,
  workflowId: document.workflowId,
  projectId: document.projectId,
  contactId: document.contactId,
  context: document.context,
  status: document.status,
  currentStepId: document.currentStepId,
  wait: document.wait,
  history: document.history,
  stepStartedAt: document.stepStartedAt,
  startedAt: document.startedAt,
  completedAt: document.completedAt,
  exitReason: document.exitReason,
  error: document.error,
});

/**
 * The projection's handler (group `workflow-executions-view`): folds each execution event into
 * its document, written only when the document reflects an earlier revision; keeps one timer per
 * wait with a due time (removed by id when the wait ends); removes the executions and timers of a
 * deleted contact. Erased events are never projected.
 */
export function executionsProjection(views: ViewStore): EventHandler {
  const collection = executionsView(views);
  const timers = views.collection<TimerDocument>(WORKFLOW_TIMERS_VIEW);
  return async (event: RecordedEvent) => {
    if (event.type === 'ContactDeleted') {
      const contactId = entityIdOf(event.streamId);
      const gone = await collection.find({ contactId });
      for (const execution of gone) await timers.deleteMany({ executionId: execution._id });
      await collection.deleteMany({ contactId });
      return;
    }
    if (!EXECUTION_EVENT_TYPES.has(event.type) || event.erased === true) return;
    const typed = { type: event.type, data: event.data } as ExecutionEvent;
    const id = entityIdOf(event.streamId);
    const current = await collection.findOne({ _id: id });
    if (current !== null && current.revision >= event.revision) return;
    if (current === null && typed.type !== 'ExecutionStarted') return;
    const previous: ExecutionState = current === null ? { exists: false } : stateOf(current);
    const next = evolveExecution(previous, typed);
    if (!next.exists) return;
    await collection.replaceOne({ _id: id }, documentOf(next, event.revision), { upsert: true });
    if (typed.type === 'ExecutionWaiting') {
      const { timerId, until } = typed.data;
      if (timerId === null || until === null) return;
      await timers.replaceOne(
        { _id: timerId },
        {
          _id: timerId,
          executionId: id,
          dueAt: Date.parse(until),
          streamId: event.streamId,
          event: {
            type: 'ExecutionTimerDue',
            data: { timerId },
            metadata: { projectId: next.projectId, subjectId: next.contactId },
          },
        },
        { upsert: true },
      );
      return;
    }
    // The timer of a wait that ended (by its event, a cancel, …) will not be needed.
    const ended = previous.exists ? (previous.wait?.timerId ?? null) : null;
    if (ended !== null && next.wait?.timerId !== ended) await timers.deleteOne({ _id: ended });
  };
}

/** An execution as the routes answer it (API reference, "Execution record"). */
export interface ExecutionResource {
  id: string;
  workflowId: string;
  contactId: string;
  status: ExecutionStatus;
  currentStepId: string | null;
  context: Record<string, unknown>;
  exitReason: string | null;
  error: string | null;
  waitingFor: string | null;
  nextRunAt: string | null;
  history: HistoryEntry[];
  startedAt: string;
  completedAt: string | null;
}

/** The resource of a view document. */
export const toExecutionResource = (document: ExecutionView): ExecutionResource => ({
  id: document._id,
  workflowId: document.workflowId,
  contactId: document.contactId,
  status: document.status,
  currentStepId: document.currentStepId,
  context: document.context,
  exitReason: document.exitReason,
  error: document.error,
  waitingFor: document.waitingFor,
  nextRunAt: document.nextRunAt,
  history: document.history,
  startedAt: document.startedAt,
  completedAt: document.completedAt,
});
