/**
 * Projection of job streams into the `contactJobs` view, which answers GET /contacts/import/:jobId
 * and GET /contacts/bulk/:jobId (architecture brief, "Idempotent projections"): each document
 * stores the job stream revision it reflects and every write is guarded by it, so a replayed
 * event changes nothing and the view can be rebuilt from the log.
 */
import {
  applyAtRevision,
  type RecordedEvent,
  type ViewCollection,
  type ViewDocument,
  type ViewStore,
} from '@stamp/platform';

import {
  type JobEvent,
  type JobQueued,
  type JobKind,
  type JobStatus,
  resultKeys,
  type RowError,
  type RowOutcome,
} from './events.ts';

/** Name of the jobs view. */
export const CONTACT_JOBS_VIEW = 'contactJobs';

/** At most this many row errors are kept on a job (the count of all is `errorCount`). */
export const MAX_STORED_ERRORS = 1000;

/** A document of the `contactJobs` view (`_id` = job id; dates ISO 8601). */
export interface ContactJobView extends ViewDocument {
  projectId: string;
  kind: JobKind;
  status: JobStatus;
  total: number;
  processed: number;
  /** Counters by outcome (keys of `resultKeys(kind)`). */
  result: Partial<Record<RowOutcome, number>>;
  /** The first {@link MAX_STORED_ERRORS} row errors, in processing order. */
  errors: RowError[];
  errorCount: number;
  fileName: string | null;
  failedReason: string | null;
  createdAt: string;
  startedAt: string | null;
  completedAt: string | null;
  /** Revision of the job stream this document reflects. */
  revision: number;
}

/** The jobs view collection. */
export const contactJobsView = (views: ViewStore): ViewCollection<ContactJobView> =>
  views.collection<ContactJobView>(CONTACT_JOBS_VIEW);

/** Creates the index of the jobs view: {projectId}. */
export async function createContactJobIndexes(views: ViewStore): Promise<void> {
  await contactJobsView(views).createIndex({ projectId: 1 });
}

/**
 * The view document of a job just queued (status QUEUED, counters at 0), also used to answer the
 * queuing request when the view is still behind.
 */
export function queuedJobView(
  jobId: string,
  projectId: string,
  data: JobQueued['data'],
  createdAt: string,
  revision: number,
): ContactJobView {
  const result: Partial<Record<RowOutcome, number>> = {};
  for (const key of resultKeys(data.kind)) result[key] = 0;
  return {
    _id: jobId,
    projectId,
    kind: data.kind,
    status: 'QUEUED',
    total: data.total,
    processed: 0,
    result,
    errors: [],
    errorCount: 0,
    fileName: data.kind === 'import' ? data.fileName : null,
    failedReason: null,
    createdAt,
    startedAt: null,
    completedAt: null,
    revision,
  };
}

/** Applies one job-stream event to the view. Idempotent: a replayed event changes nothing. */
export async function projectJobEvent(views: ViewStore, event: RecordedEvent): Promise<void> {
  const jobs = contactJobsView(views);
  const jobId = event.streamId.slice(event.streamId.indexOf('-') + 1);
  const typed = event as unknown as RecordedEvent & JobEvent;
  switch (typed.type) {
    case 'JobQueued': {
      const fields: Partial<ContactJobView> = queuedJobView(
        jobId,
        event.metadata.projectId ?? '',
        typed.data,
        event.createdAt,
        event.revision,
      );
      delete fields._id;
      delete fields.revision;
      await applyAtRevision(jobs, jobId, event.revision, { $set: fields }, true);
      return;
    }
    case 'JobStarted':
      await applyAtRevision(
        jobs,
        jobId,
        event.revision,
        { $set: { status: 'RUNNING', startedAt: event.createdAt } },
        false,
      );
      return;
    case 'RowsProcessed': {
      const current = await jobs.findOne({ _id: jobId });
      if (current === null || current.revision >= event.revision) return;
      const result = { ...current.result };
      for (const [key, count] of Object.entries(typed.data.counts)) {
        const outcome = key as RowOutcome;
        result[outcome] = (result[outcome] ?? 0) + count;
      }
      const room = Math.max(0, MAX_STORED_ERRORS - current.errors.length);
      await applyAtRevision(
        jobs,
        jobId,
        event.revision,
        {
          $set: {
            processed: current.processed + (typed.data.to - typed.data.from),
            result,
            errors: [...current.errors, ...typed.data.errors.slice(0, room)],
            errorCount: current.errorCount + typed.data.errors.length,
          },
        },
        false,
      );
      return;
    }
    case 'JobCompleted':
      await applyAtRevision(
        jobs,
        jobId,
        event.revision,
        { $set: { status: 'COMPLETED', completedAt: event.createdAt } },
        false,
      );
      return;
    case 'JobFailed':
      await applyAtRevision(
        jobs,
        jobId,
        event.revision,
        {
          $set: {
            status: 'FAILED',
            failedReason: typed.data.reason,
            completedAt: event.createdAt,
          },
        },
        false,
      );
      return;
    default:
      return;
  }
}
