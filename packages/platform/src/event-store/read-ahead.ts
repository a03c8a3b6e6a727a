import { join } from 'node:path';
import { Worker } from 'node:worker_threads';

import type { ReadAllOptions, RecordedEvent } from './event-store.ts';

/** A batch asked of the read-ahead thread. */
export interface ReadAheadRequest {
  id: number;
  after: number;
  categories?: readonly string[];
  limit: number;
}

/** The thread's answer: the batch as JSON text, or why it could not be read. */
export type ReadAheadAnswer = { id: number; json: string } | { id: number; error: string };

/** Batches asked for and not yet taken; beyond it the oldest is dropped. */
const MAX_PENDING = 4;
/** The thread ends after this long without a request, ms. */
const IDLE_MS = 10_000;

/** Key of a batch: where it starts, its categories and size. */
function batchKey(after: number, limit: number, categories?: readonly string[]): string {
  return `${after}|${limit}|${categories?.join('\u0000') ?? '*'}`;
}

/**
 * Reads batches of the embedded event log ahead on a thread of its own (`read-ahead-thread.ts`,
 * its own connection to the database file at `path`): while the event loop handles one batch of
 * a reader catching up (a view rebuild, consumer groups behind the head), the thread reads the
 * next one and opens its sealed data, work that took a quarter of a rebuild's event loop.
 *
 * A batch is read at a moment of its own. The event store asks for one only after a full batch
 * (the reader is behind the head) and uses it only when it is full too: positions are given in
 * commit order, so a full batch read earlier holds what a read now would. Erasures and stream
 * deletions change what a read answers: the store counts them (its _epoch_), and a batch asked
 * for before one of them is dropped. Another process's erasure is seen from the next request:
 * a batch is handled at most one batch's handling later than it was read, as a batch read by the
 * store itself is handled after its read. The thread starts at the first request and ends after
 * 10 s without one.
 */
export class ReadAhead {
  private readonly path: string;
  private thread: Worker | undefined;
  private ended: Promise<void> = Promise.resolve();
  private nextId = 1;
  /** Set by {@link close}: nothing is asked for afterwards. */
  private closed = false;
  private idleTimer: NodeJS.Timeout | undefined;
  /** Batches asked for, by {@link batchKey}, with the epoch they were asked at. */
  private readonly pending = new Map<
    string,
    { epoch: number; events: Promise<RecordedEvent[] | undefined> }
  >();
  /** Settles the batches the thread has yet to answer, by request id. */
  private readonly waiting = new Map<number, (events: RecordedEvent[] | undefined) => void>();
  /** Batches answered from the thread and used (a diagnostic for tests and benchmarks). */
  taken = 0;

  /** Batches asked of the thread and not answered yet. */
  get awaiting(): number {
    return this.waiting.size;
  }

  /** @param path the database file (not `:memory:`: the thread needs a connection of its own). */
  constructor(path: string) {
    this.path = path;
  }

  /** Asks the thread for the batch `{after, categories, limit}`, at the store's `epoch`. */
  request(options: ReadAllOptions & { limit: number }, epoch: number): void {
    const key = batchKey(options.after, options.limit, options.categories);
    if (this.closed || this.pending.has(key)) return;
    if (this.pending.size >= MAX_PENDING) {
      const oldest = this.pending.keys().next().value;
      if (oldest !== undefined) this.pending.delete(oldest);
    }
    const thread = this.start();
    const id = this.nextId;
    this.nextId += 1;
    const events = new Promise<RecordedEvent[] | undefined>((resolve) => {
      this.waiting.set(id, resolve);
    });
    // Kept alive while an answer is awaited: an unreferenced thread would let the process end.
    thread.ref();
    const request: ReadAheadRequest = {
      id,
      after: options.after,
      limit: options.limit,
      ...(options.categories === undefined ? {} : { categories: options.categories }),
    };
    thread.postMessage(request);
    this.pending.set(key, { epoch, events });
  }

  /**
   * The batch asked for with `options`, taken from the pending ones; undefined when none was, or
   * it was asked for at another epoch than `epoch`. The promise settles with undefined when the
   * thread could not read it.
   */
  take(
    options: ReadAllOptions & { limit: number },
    epoch: number,
  ): Promise<RecordedEvent[] | undefined> | undefined {
    const key = batchKey(options.after, options.limit, options.categories);
    const entry = this.pending.get(key);
    if (entry === undefined) return undefined;
    this.pending.delete(key);
    return entry.epoch === epoch ? entry.events : undefined;
  }

  /** Ends the thread; batches still awaited settle with undefined. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.idleTimer);
    this.pending.clear();
    // Kept alive until it has ended: an unreferenced thread's exit would not be waited for.
    this.thread?.ref();
    this.thread?.postMessage('stop');
    await this.ended;
  }

  private start(): Worker {
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => {
      this.thread?.postMessage('stop');
    }, IDLE_MS).unref();
    if (this.thread !== undefined) return this.thread;
    const thread = new Worker(join(import.meta.dirname, 'read-ahead-thread.ts'), {
      workerData: { path: this.path },
      // V8 would size the thread's heap by the machine's memory: on 24 GiB its young generation
      // alone added 150 MiB to a rebuild's peak. The thread keeps no more than a batch alive; a
      // thread out of memory ends, and the store reads on its own connection again.
      resourceLimits: { maxYoungGenerationSizeMb: 8, maxOldGenerationSizeMb: 128 },
    });
    thread.unref();
    thread.on('message', (answer: ReadAheadAnswer) => {
      const settle = this.waiting.get(answer.id);
      this.waiting.delete(answer.id);
      if (this.waiting.size === 0) thread.unref();
      settle?.('json' in answer ? (JSON.parse(answer.json) as RecordedEvent[]) : undefined);
    });
    // An error of its own (the file is gone) leaves the reads to the store's connection.
    thread.on('error', () => undefined);
    this.ended = new Promise<void>((resolve) => {
      thread.once('exit', () => {
        if (this.thread === thread) this.thread = undefined;
        for (const settle of this.waiting.values()) settle(undefined);
        this.waiting.clear();
        this.pending.clear();
        resolve();
      });
    });
    this.thread = thread;
    return thread;
  }
}
