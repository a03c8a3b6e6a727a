/**
 * The pure decider of contact jobs: which events a command on a job produces, and the events
 * that queue a new job (spec part 4, "Contacts"; architecture brief, event sourcing).
 */
import {
  allRowsDone,
  type BulkKind,
  type ImportChunkQueued,
  type ImportRow,
  type JobEvent,
  type JobQueued,
  type JobState,
  type RowError,
  type RowOutcome,
} from './events.ts';

/** Rows per ImportChunkQueued event (and per unit of resumable progress). */
export const CHUNK_SIZE = 1000;
/** At most this many ids in one bulk request (spec part 8, "Bulk by id"). */
export const MAX_BULK_IDS = 1000;

/** Commands on an existing job, issued by the worker. */
export type JobCommand =
  | { type: 'StartJob' }
  | {
      type: 'RecordRows';
      chunk: number;
      from: number;
      to: number;
      counts: Partial<Record<RowOutcome, number>>;
      errors: RowError[];
    }
  | { type: 'FailJob'; reason: string };

/**
 * Decides the events of `command` on a job in `state`. A job that already ended gives no events;
 * rows recorded twice (a redelivered chunk, a slice that does not start where the chunk's
 * progress is) give no events, so recording is idempotent. The last rows of the job also give
 * JobCompleted; rows recorded on a QUEUED job also give JobStarted first.
 * @throws Error for a job that does not exist or a slice outside its chunk (a worker bug).
 */
export function decide(state: JobState, command: JobCommand): JobEvent[] {
  if (state.status === 'NONE') throw new Error('the job does not exist');
  if (state.status === 'COMPLETED' || state.status === 'FAILED') return [];
  switch (command.type) {
    case 'StartJob':
      return state.status === 'QUEUED' ? [{ type: 'JobStarted', data: {} }] : [];
    case 'FailJob':
      return [{ type: 'JobFailed', data: { reason: command.reason } }];
    case 'RecordRows': {
      const size = state.chunkSizes[command.chunk];
      if (size === undefined) throw new Error(`the job has no chunk ${command.chunk}`);
      if (command.to > size || command.to < command.from) {
        throw new Error(`rows ${command.from}..${command.to} are outside chunk ${command.chunk}`);
      }
      if (command.from !== state.done[command.chunk] || command.to === command.from) return [];
      const events: JobEvent[] = [];
      if (state.status === 'QUEUED') events.push({ type: 'JobStarted', data: {} });
      events.push({
        type: 'RowsProcessed',
        data: {
          chunk: command.chunk,
          from: command.from,
          to: command.to,
          counts: command.counts,
          errors: command.errors,
        },
      });
      const done = [...state.done];
      done[command.chunk] = command.to;
      if (allRowsDone({ ...state, done })) events.push({ type: 'JobCompleted', data: {} });
      return events;
    }
  }
}

/** Input of {@link queueImport}: the parsed file. */
export interface ImportInput {
  columns: string[];
  rows: ImportRow[];
  fileName: string | null;
  bytes: number;
}

/**
 * The events queuing an import: JobQueued for the job stream and one ImportChunkQueued per
 * `chunkSize` rows for the rows stream, to be appended together (one atomic append).
 * @throws Error when there are no rows (the API refuses such files first).
 */
export function queueImport(
  input: ImportInput,
  chunkSize = CHUNK_SIZE,
): { queued: JobQueued; chunks: ImportChunkQueued[] } {
  if (input.rows.length === 0) throw new Error('an import needs at least one row');
  const chunks: ImportChunkQueued[] = [];
  for (let start = 0; start < input.rows.length; start += chunkSize) {
    chunks.push({
      type: 'ImportChunkQueued',
      data: { chunk: chunks.length, rows: input.rows.slice(start, start + chunkSize) },
    });
  }
  const queued: JobQueued = {
    type: 'JobQueued',
    data: {
      kind: 'import',
      total: input.rows.length,
      chunkSizes: chunks.map((chunk) => chunk.data.rows.length),
      columns: input.columns,
      fileName: input.fileName === null ? null : input.fileName.slice(0, 255),
      bytes: input.bytes,
    },
  };
  return { queued, chunks };
}

/**
 * The event queuing a bulk job: the ids, deduplicated in request order, as its one chunk.
 * @throws Error for no ids or more than {@link MAX_BULK_IDS} (the API refuses those first).
 */
export function queueBulk(kind: BulkKind, ids: readonly string[]): JobQueued {
  const unique = [...new Set(ids)];
  if (unique.length === 0 || unique.length > MAX_BULK_IDS) {
    throw new Error(`a bulk job takes 1 to ${MAX_BULK_IDS} ids`);
  }
  return {
    type: 'JobQueued',
    data: { kind, total: unique.length, chunkSizes: [unique.length], ids: unique },
  };
}
