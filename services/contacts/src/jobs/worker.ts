/**
 * The worker of contact jobs: a bus consumer group (`contact-jobs`) on the job and import-row
 * streams. Each import chunk (and the one chunk of a bulk job) is run through the contact
 * commands with bounded concurrency; per-row problems become row errors, the chunk's progress is
 * appended to the job stream with its expected revision. Delivery is at least once: progress
 * already recorded is skipped, rows are idempotent upserts, so a chunk re-run after a restart
 * resumes where the job stream says it stopped. Nothing but the log holds job state.
 */
import type { AwaitViews, UpsertRecipientInput, UpsertRecipientResult } from '@stamp/contracts';
import { ApiError } from '@stamp/http-kit';
import {
  BoundedCache,
  type Bus,
  type Consumer,
  decisionAppend,
  type EventStore,
  type Logger,
  type RecordedEvent,
  streamCategory,
  withRevisionRetry,
} from '@stamp/platform';
import { z } from 'zod';

import type { ContactCommands } from '../contacts/commands.ts';
import { importContact, type ImportHeader, readHeader } from './csv.ts';
import { decide, type JobCommand } from './decide.ts';
import {
  BULK_KINDS,
  evolve,
  IMPORT_ROWS_CATEGORY,
  importRowsStreamId,
  type ImportRow,
  initialJob,
  JOB_CATEGORY,
  type JobEvent,
  type JobState,
  jobStreamId,
  type RowError,
  type RowOutcome,
} from './events.ts';

/** Rows of an import chunk appended (and projected) before the next ones are read. */
const IMPORT_SLICE = 250;

/** Consumer group of the job worker. */
export const JOB_WORKER_GROUP = 'contact-jobs';

/** Dependencies of {@link ContactJobWorker}. */
export interface JobWorkerDeps {
  commands: ContactCommands;
  store: EventStore;
  bus: Bus;
  logger: Logger;
  awaitViews: AwaitViews;
  /** Rows of a bulk job in flight at once (default 256); an import chunk runs as one batch. */
  rowConcurrency?: number;
  /** Jobs run in parallel (default 4). */
  jobConcurrency?: number;
}

/** Thrown by the handler when the worker stops mid-chunk, so the bus delivers the chunk again. */
export class JobInterrupted extends Error {
  constructor(jobId: string) {
    super(`job ${jobId} was interrupted by shutdown; it resumes on the next start`);
    this.name = 'JobInterrupted';
  }
}

/** What one row gave. */
interface RowResult {
  outcome: RowOutcome;
  error?: RowError;
  /** Log position of the row's append, 0 when nothing was appended. */
  position: number;
}

/** A run of rows of one chunk from `start`. */
interface RowsRun {
  /** Rows before this index (from `start`) are all done. */
  reached: number;
  counts: Partial<Record<RowOutcome, number>>;
  errors: RowError[];
  /** Highest log position written by the rows done. */
  position: number;
  /** The first row that failed for a reason other than its content. */
  failure?: { index: number; error: unknown };
}

/** A job state with the revision of its stream and its project. */
interface LoadedJob {
  state: JobState;
  revision: number;
  projectId: string | null;
}

const importRowSchema = z.union([
  z.object({ line: z.number().int(), values: z.array(z.string()) }),
  z.object({ line: z.number().int(), error: z.string() }),
]);
const chunkSchema = z.object({ chunk: z.number().int().min(0), rows: z.array(importRowSchema) });

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** The reason of a refused row, from the ApiError of a contact command. */
export function reasonOf(error: ApiError): string {
  const fields = error.options.errors ?? [];
  if (fields.length === 0) return error.message;
  return fields
    .map((issue) =>
      issue.field.startsWith('data.')
        ? `Column "${issue.field.slice(5)}": ${issue.message}`
        : issue.field === 'email' || issue.field === 'data'
          ? issue.message
          : `${issue.field}: ${issue.message}`,
    )
    .join('; ');
}

/**
 * Runs rows `start`..`size-1` with at most `limit` in flight; rows with the same key (an email)
 * run one after another in file order. Stops taking rows when `shouldStop()` is true or a row
 * fails unexpectedly (after `attempts` tries), then waits for the rows in flight. Only the
 * unbroken run of finished rows from `start` counts.
 */
export async function runRows(options: {
  start: number;
  size: number;
  limit: number;
  attempts?: number;
  keyOf: (index: number) => string | undefined;
  work: (index: number) => Promise<RowResult>;
  shouldStop: () => boolean;
}): Promise<RowsRun> {
  const { start, size, limit, keyOf, work, shouldStop } = options;
  const attempts = options.attempts ?? 3;
  const results: (RowResult | undefined)[] = new Array<RowResult | undefined>(size);
  const inFlight = new Set<Promise<void>>();
  const tails = new Map<string, Promise<void>>();
  let failure: RowsRun['failure'];

  const attempt = async (index: number): Promise<void> => {
    for (let tried = 1; ; tried++) {
      try {
        results[index] = await work(index);
        return;
      } catch (error) {
        // While stopping, the row is left undone: the chunk resumes from it after the restart.
        if (shouldStop()) return;
        if (tried >= attempts) {
          failure ??= { index, error };
          return;
        }
        await sleep(50 * 4 ** tried);
      }
    }
  };

  let next = start;
  while (next < size && failure === undefined && !shouldStop()) {
    if (inFlight.size >= limit) {
      await Promise.race(inFlight);
      continue;
    }
    const index = next++;
    const key = keyOf(index);
    const before = key === undefined ? undefined : tails.get(key);
    const task = (before === undefined ? attempt(index) : before.then(() => attempt(index))).then(
      () => {
        inFlight.delete(task);
      },
    );
    inFlight.add(task);
    if (key !== undefined) tails.set(key, task);
  }
  await Promise.all(inFlight);

  const run: RowsRun = { reached: start, counts: {}, errors: [], position: 0, failure };
  for (let index = start; index < size; index++) {
    const result = results[index];
    if (result === undefined) break;
    run.reached = index + 1;
    run.counts[result.outcome] = (run.counts[result.outcome] ?? 0) + 1;
    if (result.error !== undefined) run.errors.push(result.error);
    run.position = Math.max(run.position, result.position);
  }
  return run;
}

/** The job worker; see the module comment. */
export class ContactJobWorker {
  private readonly deps: JobWorkerDeps;
  private readonly cache = new BoundedCache<string, LoadedJob>(1000);
  private consumer: Consumer | undefined;
  private stopping = false;

  constructor(deps: JobWorkerDeps) {
    this.deps = deps;
  }

  /** Starts the consumer group (topics `contactJob` and `contactImportRows`). */
  start(): void {
    if (this.consumer !== undefined) return;
    this.stopping = false;
    this.consumer = this.deps.bus.consume({
      groupId: JOB_WORKER_GROUP,
      topics: [JOB_CATEGORY, IMPORT_ROWS_CATEGORY],
      handle: (event) => this.handle(event),
      concurrency: this.deps.jobConcurrency ?? 4,
      // A worker: its handler appends whole chunks of contacts.
      ownPass: true,
    });
  }

  /**
   * Stops taking rows, records the progress of the rows in flight once they finish, and stops the
   * consumer without committing the interrupted chunks (they resume on the next start).
   */
  async stop(): Promise<void> {
    const consumer = this.consumer;
    if (consumer === undefined) return;
    this.stopping = true;
    this.consumer = undefined;
    await consumer.stop();
  }

  private async handle(event: RecordedEvent): Promise<void> {
    const category = streamCategory(event.streamId);
    const jobId = event.streamId.slice(category.length + 1);
    if (category === IMPORT_ROWS_CATEGORY && event.type === 'ImportChunkQueued') {
      await this.runImportChunk(jobId, event);
    } else if (category === JOB_CATEGORY && event.type === 'JobQueued') {
      const kind = (event.data as { kind?: unknown }).kind;
      if (BULK_KINDS.some((bulk) => bulk === kind)) await this.runBulk(jobId);
    }
  }

  private async runImportChunk(jobId: string, event: RecordedEvent): Promise<void> {
    const parsed = chunkSchema.safeParse(event.data);
    const job = await this.ready(jobId);
    if (job === null) return;
    if (!parsed.success) {
      await this.fail(jobId, job, `The rows of the import could not be read (event ${event.id})`);
      return;
    }
    const { chunk } = parsed.data;
    const rows = parsed.data.rows as ImportRow[];
    if (job.state.kind !== 'import' || job.state.chunkSizes[chunk] !== rows.length) {
      await this.fail(jobId, job, `Chunk ${chunk} of the import does not match the job`);
      return;
    }
    let header: ImportHeader;
    try {
      header = readHeader(job.state.columns);
    } catch {
      await this.fail(jobId, job, 'The header of the import is invalid');
      return;
    }
    const projectId = job.projectId ?? '';
    await this.runChunk(jobId, job, chunk, rows.length, {
      describe: (index) => `line ${rows[index]?.line ?? '?'}`,
      run: (start, size) => this.importRows(jobId, projectId, header, rows, start, size),
    });
  }

  /**
   * Imports rows `start`..`size-1` of a chunk through the batch command (their contacts appended
   * together): rows that cannot be read, or whose contact is refused, become row errors. An
   * unexpected failure is tried again (three attempts in all, backoff) before it stops the run.
   */
  private async importRows(
    jobId: string,
    projectId: string,
    header: ImportHeader,
    rows: readonly ImportRow[],
    start: number,
    size: number,
  ): Promise<RowsRun> {
    const results = new Map<number, RowResult>();
    const inputs: UpsertRecipientInput[] = [];
    const inputRows: number[] = [];
    for (let index = start; index < size; index += 1) {
      const row = rows[index];
      if (row === undefined) continue;
      if ('error' in row) {
        results.set(index, {
          outcome: 'failed',
          error: { line: row.line, reason: row.error },
          position: 0,
        });
        continue;
      }
      const contact = importContact(header, row.values);
      const email = contact.email?.slice(0, 320);
      if ('error' in contact) {
        const error: RowError = { line: row.line, reason: contact.error };
        if (email !== undefined) error.email = email;
        results.set(index, { outcome: 'failed', error, position: 0 });
        continue;
      }
      inputs.push({
        projectId,
        email: contact.email,
        subscribed: contact.subscribed,
        defaultSubscribed: true,
        data: contact.data,
        correlationId: jobId,
      });
      inputRows.push(index);
    }
    let outcomes: (UpsertRecipientResult | ApiError)[] | undefined;
    for (let attempt = 1; outcomes === undefined; attempt += 1) {
      try {
        outcomes = await this.upsertInSlices(inputs);
      } catch (error) {
        if (this.stopping) return { reached: start, counts: {}, errors: [], position: 0 };
        if (attempt >= 3) {
          return {
            reached: start,
            counts: {},
            errors: [],
            position: 0,
            failure: { index: inputRows[0] ?? start, error },
          };
        }
        await sleep(50 * 4 ** attempt);
      }
    }
    for (const [at, outcome] of outcomes.entries()) {
      const index = inputRows[at] ?? start;
      const row = rows[index];
      if (outcome instanceof ApiError) {
        const line = row?.line ?? 0;
        const email = inputs[at]?.email.slice(0, 320) ?? '';
        results.set(index, {
          outcome: 'failed',
          error: { line, email, reason: reasonOf(outcome) },
          position: 0,
        });
      } else {
        const kind = outcome.isNew ? 'created' : outcome.position > 0 ? 'updated' : 'unchanged';
        results.set(index, { outcome: kind, position: outcome.position });
      }
    }
    // Stopped between slices: the rows before the first one not run are done.
    const reached = inputRows[outcomes.length] ?? size;
    const run: RowsRun = { reached, counts: {}, errors: [], position: 0 };
    for (let index = start; index < reached; index += 1) {
      const result = results.get(index);
      if (result === undefined) continue;
      run.counts[result.outcome] = (run.counts[result.outcome] ?? 0) + 1;
      if (result.error !== undefined) run.errors.push(result.error);
      run.position = Math.max(run.position, result.position);
    }
    return run;
  }

  /**
   * Upserts `inputs` in slices of {@link IMPORT_SLICE} rows, each slice's contacts appended
   * together; between slices the worker waits for the views to reflect the slice, so the log
   * never runs far ahead of the projections (a request's read-your-writes wait stays short).
   * Slices run in order, so rows repeating an email keep their order. When the worker stops,
   * the outcomes of the slices run so far are returned.
   */
  private async upsertInSlices(
    inputs: readonly UpsertRecipientInput[],
  ): Promise<(UpsertRecipientResult | ApiError)[]> {
    const outcomes: (UpsertRecipientResult | ApiError)[] = [];
    for (let start = 0; start < inputs.length && !this.stopping; start += IMPORT_SLICE) {
      const slice = await this.deps.commands.upsertRecipients(
        inputs.slice(start, start + IMPORT_SLICE),
      );
      outcomes.push(...slice);
      let position = 0;
      for (const outcome of slice) {
        if (!(outcome instanceof ApiError)) position = Math.max(position, outcome.position);
      }
      if (position > 0 && !this.stopping) await this.deps.awaitViews(position);
    }
    return outcomes;
  }

  private async runBulk(jobId: string): Promise<void> {
    const job = await this.ready(jobId);
    if (job === null) return;
    const { kind, ids } = job.state;
    const projectId = job.projectId ?? '';
    const { commands } = this.deps;
    await this.runChunk(jobId, job, 0, ids.length, {
      describe: (index) => `contact ${ids[index] ?? '?'}`,
      keyOf: () => undefined,
      work: async (index) => {
        const id = ids[index] ?? '';
        try {
          if (kind === 'bulk-delete') {
            const result = await commands.deleteContact(projectId, id, jobId);
            return { outcome: 'deleted', position: result.position };
          }
          const subscribe = kind === 'bulk-subscribe';
          const result = await commands.updateContact(
            projectId,
            id,
            { subscribed: subscribe },
            jobId,
          );
          const outcome: RowOutcome =
            result.position === 0 ? 'unchanged' : subscribe ? 'subscribed' : 'unsubscribed';
          return { outcome, position: result.position };
        } catch (error) {
          if (!(error instanceof ApiError) || error.status >= 500) throw error;
          if (error.status === 404) {
            return { outcome: 'notFound', error: { id, reason: 'Contact not found' }, position: 0 };
          }
          return { outcome: 'failed', error: { id, reason: reasonOf(error) }, position: 0 };
        }
      },
    });
  }

  /**
   * The job, loaded and started (JobStarted appended when QUEUED); null when it does not exist,
   * already ended, or has no project (it is then marked FAILED).
   * @throws JobInterrupted while stopping.
   */
  private async ready(jobId: string): Promise<LoadedJob | null> {
    if (this.stopping) throw new JobInterrupted(jobId);
    const job = await this.load(jobId);
    if (job.state.status === 'NONE') {
      this.deps.logger.warn({ jobId }, 'contact job event without a job; skipped');
      return null;
    }
    if (job.state.status === 'COMPLETED' || job.state.status === 'FAILED') return null;
    if (job.projectId === null || job.projectId === '') {
      await this.fail(jobId, job, 'The job has no project');
      return null;
    }
    if (job.state.status === 'QUEUED') return this.execute(jobId, [{ type: 'StartJob' }]);
    return job;
  }

  /**
   * Runs the rest of one chunk and records its progress (and the end of the job): rows one by one
   * (`keyOf`, `work`) or all at once (`run`).
   */
  private async runChunk(
    jobId: string,
    job: LoadedJob,
    chunk: number,
    size: number,
    rows: { describe: (index: number) => string } & (
      | {
          keyOf: (index: number) => string | undefined;
          work: (index: number) => Promise<RowResult>;
        }
      | { run: (start: number, size: number) => Promise<RowsRun> }
    ),
  ): Promise<void> {
    const start = job.state.done[chunk] ?? 0;
    if (start >= size) return;
    const run =
      'run' in rows
        ? await rows.run(start, size)
        : await runRows({
            start,
            size,
            limit: this.deps.rowConcurrency ?? 256,
            keyOf: rows.keyOf,
            work: rows.work,
            shouldStop: () => this.stopping,
          });
    const commands: JobCommand[] = [];
    if (run.reached > start) {
      commands.push({
        type: 'RecordRows',
        chunk,
        from: start,
        to: run.reached,
        counts: run.counts,
        errors: run.errors,
      });
    }
    if (run.failure !== undefined) {
      this.deps.logger.error(
        { err: run.failure.error, jobId, chunk, row: run.failure.index },
        'contact job row failed unexpectedly; the job is marked FAILED',
      );
      commands.push({
        type: 'FailJob',
        reason: `An unexpected error stopped the job at ${rows.describe(run.failure.index)}; the rows before it were processed`,
      });
    }
    // Read-your-writes: a job shown COMPLETED has its contacts visible in the views.
    if (!this.stopping && run.position > 0) await this.deps.awaitViews(run.position);
    if (commands.length > 0) await this.execute(jobId, commands);
    if (run.failure === undefined && run.reached < size) throw new JobInterrupted(jobId);
  }

  private async fail(jobId: string, job: LoadedJob, reason: string): Promise<void> {
    this.deps.logger.error({ jobId, projectId: job.projectId, reason }, 'contact job failed');
    await this.execute(jobId, [{ type: 'FailJob', reason }]);
  }

  /** Decides `commands` in order on the current state and appends the events; retries conflicts. */
  private async execute(jobId: string, commands: JobCommand[]): Promise<LoadedJob> {
    const streamId = jobStreamId(jobId);
    return withRevisionRetry(
      async () => {
        const job = await this.load(jobId);
        let state = job.state;
        const events: JobEvent[] = [];
        for (const command of commands) {
          const decided = decide(state, command);
          state = decided.reduce(evolve, state);
          events.push(...decided);
        }
        if (events.length === 0) return job;
        const result = await this.deps.store.append([
          decisionAppend(streamId, job.revision, events, {
            projectId: job.projectId ?? '',
            correlationId: jobId,
          }),
        ]);
        if (state.status === 'COMPLETED' || state.status === 'FAILED') {
          // The uploaded rows are personal data: once the job has ended they leave the log.
          await this.deps.store.deleteStream(importRowsStreamId(jobId));
        }
        const loaded = {
          state,
          revision: result.revisions[streamId] ?? job.revision + events.length,
          projectId: job.projectId,
        };
        this.remember(jobId, loaded);
        return loaded;
      },
      {
        attempts: 5,
        onConflict: () => {
          this.cache.delete(jobId);
        },
      },
    );
  }

  /** The job's state: the cached one advanced by the events appended since. */
  private async load(jobId: string): Promise<LoadedJob> {
    const base = this.cache.get(jobId) ?? { state: initialJob(), revision: -1, projectId: null };
    const recorded = await this.deps.store.readStream(jobStreamId(jobId), base.revision + 1);
    if (recorded.length === 0) return base;
    let { state, projectId } = base;
    for (const event of recorded) {
      state = evolve(state, event as unknown as JobEvent);
      projectId ??= event.metadata.projectId ?? null;
    }
    const loaded = { state, projectId, revision: recorded[recorded.length - 1]?.revision ?? -1 };
    this.remember(jobId, loaded);
    return loaded;
  }

  /** Caches a job's state while it runs (at most 1,000 jobs; ended jobs are dropped). */
  private remember(jobId: string, job: LoadedJob): void {
    this.cache.delete(jobId);
    if (job.state.status === 'COMPLETED' || job.state.status === 'FAILED') return;
    this.cache.set(jobId, job);
  }
}
