/**
 * Events of workflow executions (stream `workflowExecution-<executionId>`, one per contact and
 * start) and of enrollments (stream `workflowEnrollment-<derived id of workflow and contact>`),
 * and the states they fold into (API reference, "Enums": execution status; "Execution record").
 */
import { type ExecutionEndEventData, WORKFLOW_EXECUTION_STREAM_CATEGORY } from '@stamp/contracts';
import { derivedId, type StreamModel } from '@stamp/platform';

import type { StepType } from '../workflows/events.ts';

/** Stream category of executions. */
export const EXECUTION_CATEGORY = WORKFLOW_EXECUTION_STREAM_CATEGORY;
/** Stream category of enrollments: which executions a contact had in a workflow. */
export const ENROLLMENT_CATEGORY = 'workflowEnrollment';

/** Stream of an execution. */
export const executionStream = (executionId: string): string =>
  `${EXECUTION_CATEGORY}-${executionId}`;
/** Stream of the enrollments of `contactId` in `workflowId`. */
export const enrollmentStream = (workflowId: string, contactId: string): string =>
  `${ENROLLMENT_CATEGORY}-${derivedId(`workflowEnrollment:${workflowId}:${contactId}`)}`;

/** Execution status (API reference, "Enums"). */
export type ExecutionStatus =
  'RUNNING' | 'WAITING' | 'COMPLETED' | 'EXITED' | 'FAILED' | 'CANCELLED';

/** Statuses of an execution that has not ended. */
export const ACTIVE_STATUSES: readonly ExecutionStatus[] = ['RUNNING', 'WAITING'];

/** A step an execution went through. */
export interface HistoryEntry {
  stepId: string;
  stepType: StepType;
  /** `sent`, `skipped`, `yes`/`no`, `EVENT`/`TIMEOUT`, `elapsed`, `updated`, `delivered`, … */
  outcome: string;
  output: Record<string, unknown> | null;
  /** ISO 8601 times. */
  startedAt: string;
  completedAt: string;
}

/** What a waiting execution waits for. */
export interface Wait {
  stepId: string;
  stepType: 'DELAY' | 'WAIT_FOR_EVENT';
  /** The event that resumes it (WAIT_FOR_EVENT). */
  eventName: string | null;
  /** ISO 8601 time of its timer (a DELAY's end, a WAIT_FOR_EVENT's timeout). */
  until: string | null;
  timerId: string | null;
  since: string;
}

/** An execution event. */
export type ExecutionEvent =
  | {
      type: 'ExecutionStarted';
      data: {
        executionId: string;
        workflowId: string;
        projectId: string;
        contactId: string;
        context: Record<string, unknown>;
        /** The event that started it; null for a start by hand. */
        triggerEventId: string | null;
        /** The step after the trigger; null when there is none. */
        nextStepId: string | null;
        startedAt: string;
      };
    }
  | {
      type: 'ExecutionStepCompleted';
      data: HistoryEntry & { nextStepId: string | null };
    }
  | { type: 'ExecutionWaiting'; data: Wait }
  /** Appended by the timer of a wait (event id = timer id). */
  | { type: 'ExecutionTimerDue'; data: { timerId: string } }
  | { type: 'ExecutionCompleted'; data: ExecutionEndEventData }
  | {
      type: 'ExecutionExited';
      data: ExecutionEndEventData & { stepId: string | null; reason: string };
    }
  | {
      type: 'ExecutionFailed';
      data: ExecutionEndEventData & { stepId: string | null; error: string };
    }
  | { type: 'ExecutionCancelled'; data: ExecutionEndEventData };

/** An execution that exists. */
export interface KnownExecution {
  exists: true;
  id: string;
  workflowId: string;
  projectId: string;
  contactId: string;
  context: Record<string, unknown>;
  status: ExecutionStatus;
  /** The step to run next (RUNNING) or being waited at (WAITING); null once ended. */
  currentStepId: string | null;
  wait: Wait | null;
  history: HistoryEntry[];
  /** When the current step began (the last step's end, or the start). */
  stepStartedAt: string;
  startedAt: string;
  completedAt: string | null;
  exitReason: string | null;
  error: string | null;
}

/** State of an execution stream. */
export type ExecutionState = { exists: false } | KnownExecution;

const ended = (
  state: KnownExecution,
  status: ExecutionStatus,
  completedAt: string,
  extra: Partial<KnownExecution> = {},
): KnownExecution => ({ ...state, status, currentStepId: null, wait: null, completedAt, ...extra });

/** Applies one execution event. Pure. */
export function evolveExecution(state: ExecutionState, event: ExecutionEvent): ExecutionState {
  if (event.type === 'ExecutionStarted') {
    const { data } = event;
    return {
      exists: true,
      id: data.executionId,
      workflowId: data.workflowId,
      projectId: data.projectId,
      contactId: data.contactId,
      context: data.context,
      status: 'RUNNING',
      currentStepId: data.nextStepId,
      wait: null,
      history: [],
      stepStartedAt: data.startedAt,
      startedAt: data.startedAt,
      completedAt: null,
      exitReason: null,
      error: null,
    };
  }
  if (!state.exists) return state;
  switch (event.type) {
    case 'ExecutionStepCompleted': {
      const { nextStepId, ...entry } = event.data;
      // The awaited event's data joins the context (`event.<key>` of later steps).
      const awaited =
        entry.stepType === 'WAIT_FOR_EVENT' && entry.outcome === 'EVENT'
          ? (entry.output?.data as Record<string, unknown> | undefined)
          : undefined;
      return {
        ...state,
        context: awaited === undefined ? state.context : { ...state.context, ...awaited },
        status: 'RUNNING',
        currentStepId: nextStepId,
        wait: null,
        history: [...state.history, entry],
        stepStartedAt: entry.completedAt,
      };
    }
    case 'ExecutionWaiting':
      return { ...state, status: 'WAITING', wait: event.data };
    case 'ExecutionTimerDue':
      return state;
    case 'ExecutionCompleted':
      return ended(state, 'COMPLETED', event.data.completedAt);
    case 'ExecutionExited':
      return ended(state, 'EXITED', event.data.completedAt, { exitReason: event.data.reason });
    case 'ExecutionFailed':
      return ended(state, 'FAILED', event.data.completedAt, { error: event.data.error });
    case 'ExecutionCancelled':
      return ended(state, 'CANCELLED', event.data.completedAt);
  }
}

/** The event types of execution streams. */
export const EXECUTION_EVENT_TYPES: ReadonlySet<string> = new Set<ExecutionEvent['type']>([
  'ExecutionStarted',
  'ExecutionStepCompleted',
  'ExecutionWaiting',
  'ExecutionTimerDue',
  'ExecutionCompleted',
  'ExecutionExited',
  'ExecutionFailed',
  'ExecutionCancelled',
]);

/** Event types that end an execution. */
export const TERMINAL_EVENT_TYPES: ReadonlySet<string> = new Set<ExecutionEvent['type']>([
  'ExecutionCompleted',
  'ExecutionExited',
  'ExecutionFailed',
  'ExecutionCancelled',
]);

/** How execution streams fold. */
export const executionModel: StreamModel<ExecutionState, ExecutionEvent> = {
  stream: executionStream,
  initial: () => ({ exists: false }),
  evolve: evolveExecution,
  types: EXECUTION_EVENT_TYPES,
};

/** An enrollment event: an execution of the contact began or ended. */
export type EnrollmentEvent =
  | {
      type: 'EnrollmentStarted';
      data: { executionId: string; workflowId: string; contactId: string };
    }
  | { type: 'EnrollmentEnded'; data: { executionId: string } };

/** What the enrollments of a contact in a workflow say: ever enrolled, the active execution. */
export interface EnrollmentState {
  enrolled: boolean;
  active: string | null;
}

/** How enrollment streams fold (the stream id is given whole: see {@link enrollmentStream}). */
export const enrollmentModel: StreamModel<EnrollmentState, EnrollmentEvent> = {
  stream: (streamId) => streamId,
  initial: () => ({ enrolled: false, active: null }),
  evolve: (state, event) =>
    event.type === 'EnrollmentStarted'
      ? { enrolled: true, active: event.data.executionId }
      : { ...state, active: state.active === event.data.executionId ? null : state.active },
  types: new Set(['EnrollmentStarted', 'EnrollmentEnded']),
};
