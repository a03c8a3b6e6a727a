/**
 * Events of contact jobs (spec part 4, "Contacts": CSV import and bulk subscribe, unsubscribe and
 * delete; API reference, job status): the job stream `contactJob-<jobId>` records the job, its
 * progress and its end; an import's rows travel in a second stream `contactImportRows-<jobId>`
 * appended atomically with the job, in chunks, so no single event is huge and the job stream
 * stays small. `evolve` folds the job stream into the state the worker decides on.
 */

/** Stream category of jobs. */
export const JOB_CATEGORY = 'contactJob';
/** Stream category of the rows of CSV imports. */
export const IMPORT_ROWS_CATEGORY = 'contactImportRows';

/** Stream id of a job. */
export const jobStreamId = (jobId: string): string => `${JOB_CATEGORY}-${jobId}`;
/** Stream id of the rows of an import job. */
export const importRowsStreamId = (jobId: string): string => `${IMPORT_ROWS_CATEGORY}-${jobId}`;

/** The bulk operations by contact id. */
export type BulkKind = 'bulk-subscribe' | 'bulk-unsubscribe' | 'bulk-delete';
/** What a job does. */
export type JobKind = 'import' | BulkKind;
/** Job status values (API reference, "Enums"). */
export type JobStatus = 'QUEUED' | 'RUNNING' | 'COMPLETED' | 'FAILED';

/** The bulk kinds, for validation and routing. */
export const BULK_KINDS: readonly BulkKind[] = [
  'bulk-subscribe',
  'bulk-unsubscribe',
  'bulk-delete',
];

/**
 * What happened to one row (import) or one id (bulk). Counters of a job's `result` are named
 * after these and are disjoint: their sum is `processed`.
 */
export type RowOutcome =
  | 'created'
  | 'updated'
  | 'unchanged'
  | 'subscribed'
  | 'unsubscribed'
  | 'deleted'
  | 'notFound'
  | 'failed';

/** The result counters of each kind of job, in the order they are shown. */
export function resultKeys(kind: JobKind): readonly RowOutcome[] {
  switch (kind) {
    case 'import':
      return ['created', 'updated', 'unchanged', 'failed'];
    case 'bulk-subscribe':
      return ['subscribed', 'unchanged', 'notFound', 'failed'];
    case 'bulk-unsubscribe':
      return ['unsubscribed', 'unchanged', 'notFound', 'failed'];
    case 'bulk-delete':
      return ['deleted', 'notFound', 'failed'];
  }
}

/**
 * A row that was not applied: `line` (1-based line of the CSV file where the record starts) and
 * `email` for imports, `id` for bulk jobs; `reason` says why.
 */
export interface RowError {
  line?: number;
  email?: string;
  id?: string;
  reason: string;
}

/**
 * One record of an uploaded CSV file: its `values` in header order, or the `error` that made it
 * unreadable (wrong column count, unclosed quote). `line` is where the record starts (1-based).
 */
export type ImportRow = { line: number; values: string[] } | { line: number; error: string };

/** Data of JobQueued for an import. */
export interface ImportQueuedData {
  kind: 'import';
  /** Records of the file (header excluded, blank lines skipped). */
  total: number;
  /** Rows of each ImportChunkQueued event, by chunk index. */
  chunkSizes: number[];
  /** Header names (trimmed), the order of `values` of every row. */
  columns: string[];
  /** Client-supplied file name (at most 255 characters), null when absent. */
  fileName: string | null;
  /** Size of the upload, bytes. */
  bytes: number;
}

/** Data of JobQueued for a bulk job: the ids (deduplicated, in request order) are one chunk. */
export interface BulkQueuedData {
  kind: BulkKind;
  total: number;
  chunkSizes: [number];
  ids: string[];
}

/** A job was accepted; an import's rows are appended in the same atomic append. */
export interface JobQueued {
  type: 'JobQueued';
  data: ImportQueuedData | BulkQueuedData;
}
/** The worker took the job up. */
export interface JobStarted {
  type: 'JobStarted';
  data: Record<string, never>;
}
/**
 * Rows `from` (inclusive) to `to` (exclusive) of chunk `chunk` were applied; `counts` per outcome
 * and the `errors` of those rows (all of them: a slice has at most one chunk of rows).
 */
export interface RowsProcessed {
  type: 'RowsProcessed';
  data: {
    chunk: number;
    from: number;
    to: number;
    counts: Partial<Record<RowOutcome, number>>;
    errors: RowError[];
  };
}
/** Every row of the job was processed. */
export interface JobCompleted {
  type: 'JobCompleted';
  data: Record<string, never>;
}
/** The job stopped for a reason other than a bad row; rows not processed stay undone. */
export interface JobFailed {
  type: 'JobFailed';
  data: { reason: string };
}

/** Any event of a job stream. */
export type JobEvent = JobQueued | JobStarted | RowsProcessed | JobCompleted | JobFailed;

/** One chunk of an import's rows (stream `contactImportRows-<jobId>`). */
export interface ImportChunkQueued {
  type: 'ImportChunkQueued';
  data: { chunk: number; rows: ImportRow[] };
}

/** State of a job folded from its stream; `status` NONE = no stream. */
export interface JobState {
  status: JobStatus | 'NONE';
  kind: JobKind | null;
  total: number;
  /** Rows of each chunk. */
  chunkSizes: number[];
  /** Rows already processed of each chunk (they are processed in order). */
  done: number[];
  /** Header names of an import. */
  columns: string[];
  /** Contact ids of a bulk job. */
  ids: string[];
  processed: number;
}

/** State before the first event. */
export const initialJob = (): JobState => ({
  status: 'NONE',
  kind: null,
  total: 0,
  chunkSizes: [],
  done: [],
  columns: [],
  ids: [],
  processed: 0,
});

/** Applies one job event (unknown types are ignored). */
export function evolve(state: JobState, event: JobEvent): JobState {
  switch (event.type) {
    case 'JobQueued': {
      const data = event.data;
      return {
        ...initialJob(),
        status: 'QUEUED',
        kind: data.kind,
        total: data.total,
        chunkSizes: [...data.chunkSizes],
        done: data.chunkSizes.map(() => 0),
        columns: data.kind === 'import' ? [...data.columns] : [],
        ids: data.kind === 'import' ? [] : [...data.ids],
      };
    }
    case 'JobStarted':
      return state.status === 'QUEUED' ? { ...state, status: 'RUNNING' } : state;
    case 'RowsProcessed': {
      const done = [...state.done];
      done[event.data.chunk] = event.data.to;
      return {
        ...state,
        done,
        processed: state.processed + (event.data.to - event.data.from),
      };
    }
    case 'JobCompleted':
      return { ...state, status: 'COMPLETED' };
    case 'JobFailed':
      return { ...state, status: 'FAILED' };
    default:
      return state;
  }
}

/** Whether every row of every chunk was processed. */
export function allRowsDone(state: JobState): boolean {
  return state.chunkSizes.every((size, chunk) => (state.done[chunk] ?? 0) >= size);
}
