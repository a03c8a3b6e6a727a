import type { Logger } from 'pino';

import {
  type AppendNotice,
  type EventStore,
  type RecordedEvent,
  streamCategory,
} from '../event-store/event-store.ts';
import type { Bus, ConsumeOptions, Consumer } from './bus.ts';
import type { CheckpointStore } from './checkpoint-store.ts';

/** Options of {@link LogBus}. */
export interface LogBusOptions {
  store: EventStore;
  checkpoints: CheckpointStore;
  logger: Logger;
  /** Poll interval (ms) that also picks up appends made by other processes; default 250. */
  pollMs?: number;
  /** First delay (ms) before a failed event is retried; doubles up to 30 s. Default 100. */
  retryMs?: number;
  /**
   * Least time between two checkpoint writes of a group, ms (default 100). The position in memory
   * is always current; after a crash a group re-reads at most this much of the log, which its
   * idempotent handlers absorb.
   */
  checkpointIntervalMs?: number;
  /** Runs before every checkpoint write, for example to flush written-behind views. */
  beforeCheckpoint?: () => void;
  /** Events read per batch of the shared pass (default 256). */
  passBatchSize?: number;
}

/**
 * The embedded Bus: consumer groups read the event log itself from their checkpoints, woken by
 * appends to their topics, and commit checkpoints after handled batches. Topics are stream
 * categories and the partition key is the stream id, as with the Kafka relay.
 *
 * Groups of one bus share a pass over the log: once a group has caught up with it, each batch
 * is read (and its sealed data opened) once for every group, and the groups handle their events
 * of the batch side by side before the next batch. A group that is behind (new, or reset for a
 * rebuild while others are current), whose handler fails, or that asked for its own pass
 * ({@link ConsumeOptions.ownPass}: workers that wait on the network) reads on its own and joins
 * the shared pass again once it has caught up.
 */
export class LogBus implements Bus {
  private readonly options: LogBusOptions;
  private readonly pass: SharedPass;

  constructor(options: LogBusOptions) {
    this.options = options;
    this.pass = new SharedPass(options);
  }

  consume(options: ConsumeOptions): Consumer {
    return new LogConsumer(this.options, options, options.ownPass === true ? undefined : this.pass);
  }
}

/** Sleeps until `poll` ms passed or `wake` is called; `wake` is handed to `setWake`. */
function sleep(pollMs: number, setWake: (wake: (() => void) | undefined) => void): Promise<void> {
  return new Promise<void>((resolve) => {
    const timer = setTimeout(done, pollMs);
    function done(): void {
      clearTimeout(timer);
      setWake(undefined);
      resolve();
    }
    setWake(done);
  });
}

const yieldToEventLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * Longest stretch of handling, ms, before the handlers of a process let the event loop run:
 * the embedded adapters answer without I/O, so handlers resolve one another's promises without
 * end and would hold back requests, timers and replies of worker threads.
 */
const SLICE_MS = 10;
let sliceStartedAt = performance.now();

/** Yields to the event loop once the current slice of handling is over (see {@link SLICE_MS}). */
async function pace(): Promise<void> {
  if (performance.now() - sliceStartedAt < SLICE_MS) return;
  await yieldToEventLoop();
  sliceStartedAt = performance.now();
}

/**
 * The pass over the log shared by the groups that caught up with it: reads the union of their
 * topics once per batch and hands each group its events of the batch.
 */
class SharedPass {
  private readonly bus: LogBusOptions;
  private readonly members = new Set<LogConsumer>();
  /** Last log position every member has been handed. */
  private position = 0;
  private running: Promise<void> | undefined;
  /** Set while a batch is read: groups asking to join then wait in {@link waiting}. */
  private reading = false;
  private readonly waiting = new Set<LogConsumer>();
  private idle = false;
  private dirty = false;
  private wake: (() => void) | undefined;

  constructor(bus: LogBusOptions) {
    this.bus = bus;
  }

  /**
   * Takes `consumer` into the pass when it has handled everything the pass has handed out
   * (its checkpoint is not behind the pass); false otherwise.
   */
  join(consumer: LogConsumer): boolean {
    if (this.members.size === 0 && !this.reading) this.position = consumer.checkpoint;
    else if (consumer.checkpoint < this.position) return false;
    if (this.reading) {
      // The batch being read may hold its events on topics the read did not ask for: decide
      // once the read's end is known.
      this.waiting.add(consumer);
      return true;
    }
    this.members.add(consumer);
    if (this.running === undefined) {
      const unsubscribe = this.bus.store.onAppend((notice) => {
        this.onAppend(notice);
      });
      this.running = this.run()
        .catch((error: unknown) => {
          this.bus.logger.error({ err: error }, 'shared pass failed; groups read on their own');
        })
        .finally(() => {
          unsubscribe();
          this.running = undefined;
          // Every group still here reads on its own again (and may start a new pass).
          for (const member of [...this.members, ...this.waiting]) member.release();
          this.members.clear();
          this.waiting.clear();
        });
    }
    this.wakeUp();
    return true;
  }

  /** Lets `consumer` go after the batch in progress; `released` of the consumer settles then. */
  leave(consumer: LogConsumer): void {
    this.wakeUp();
    if (this.running === undefined && this.members.delete(consumer)) consumer.release();
  }

  wakeUp(): void {
    this.idle = false;
    this.wake?.();
  }

  private onAppend(notice: AppendNotice): void {
    if (this.members.size === 0) return;
    for (const category of notice.categories) {
      for (const member of this.members) {
        if (member.topics.has(category)) {
          this.dirty = true;
          this.wakeUp();
          return;
        }
      }
    }
    // No member reads what was appended: when nothing else was appended in between, every
    // member is at the append's last position without reading it.
    if (this.idle && !this.dirty && notice.first === this.position + 1) {
      this.position = notice.last;
      for (const member of this.members) member.advance(notice.last);
    } else {
      this.wakeUp();
    }
  }

  private async run(): Promise<void> {
    const { store, pollMs = 250 } = this.bus;
    const batchSize = this.bus.passBatchSize ?? 256;
    // Groups started together (a process starting its services, a rebuild) join before the
    // first read: they begin at the same position and read the log once.
    await yieldToEventLoop();
    while (this.members.size > 0) {
      for (const member of this.members) {
        if (member.stopping) {
          this.members.delete(member);
          member.release();
        }
      }
      if (this.members.size === 0) break;
      this.dirty = false;
      const topics = new Set<string>();
      for (const member of this.members) for (const topic of member.topics) topics.add(topic);
      this.reading = true;
      let read: RecordedEvent[];
      let head: number;
      try {
        head = await store.headPosition();
        read = await store.readAll({
          after: this.position,
          categories: [...topics],
          limit: batchSize,
        });
      } finally {
        this.reading = false;
      }
      const batch = read.filter((event) => event.position <= head);
      const full = batch.length === batchSize;
      const end = Math.max(
        this.position,
        full ? (batch[batch.length - 1]?.position ?? head) : head,
      );
      // From here a group may join only when it has handled this batch already.
      this.position = end;
      const members = [...this.members];
      for (const candidate of this.waiting) {
        if (candidate.checkpoint >= end && !candidate.stopping) this.members.add(candidate);
        else candidate.release();
      }
      this.waiting.clear();
      const handled = await Promise.all(members.map((member) => member.deliver(batch, end)));
      for (const [index, member] of members.entries()) {
        if (handled[index] !== true) {
          this.members.delete(member);
          member.release();
        }
      }
      if (full) {
        // The embedded adapters answer without I/O: yield to timers and sockets between batches.
        await yieldToEventLoop();
      } else if (!this.dirty) {
        this.idle = true;
        if (this.members.size > 0) {
          await sleep(pollMs, (wake) => {
            this.wake = wake;
            if (wake !== undefined && !this.idle) wake();
          });
        }
        this.idle = false;
        // Let appends made in the same turn of the event loop join the next read.
        await yieldToEventLoop();
      }
    }
  }
}

class LogConsumer implements Consumer {
  readonly groupId: string;
  readonly topics: ReadonlySet<string>;
  private readonly bus: LogBusOptions;
  private readonly options: ConsumeOptions;
  private readonly pass: SharedPass | undefined;
  /** Position handled in memory; `saved` is what the checkpoint store holds. */
  checkpoint: number;
  private saved: number;
  /** Set once the stored checkpoint was loaded; nothing is saved before. */
  private loaded = false;
  private saving: Promise<void> = Promise.resolve();
  private saveTimer: NodeJS.Timeout | undefined;
  private lastSaveAt = 0;
  /** Set by {@link stop}. */
  stopping = false;
  /** Set while the group reads with the shared pass. */
  private shared = false;
  /** Settles when the shared pass lets the group go. */
  private released: (() => void) | undefined;
  /** Set while the loop sleeps with nothing left to read; cleared by a wake. */
  private idle = false;
  /** Set by an append to one of the topics; cleared when the loop starts a read. */
  private dirty = false;
  private wake: (() => void) | undefined;
  private readonly waiters = new Set<{ position: number; resolve: (ok: boolean) => void }>();
  private readonly unsubscribe: () => void;
  private readonly loop: Promise<void>;

  constructor(bus: LogBusOptions, options: ConsumeOptions, pass: SharedPass | undefined) {
    this.bus = bus;
    this.options = options;
    this.pass = pass;
    this.groupId = options.groupId;
    this.topics = new Set(options.topics);
    this.checkpoint = 0;
    this.saved = 0;
    this.unsubscribe = bus.store.onAppend((notice) => {
      this.onAppend(notice);
    });
    this.loop = this.run();
  }

  waitFor(position: number, timeoutMs: number): Promise<boolean> {
    if (this.checkpoint >= position) return Promise.resolve(true);
    return new Promise((resolve) => {
      const waiter = {
        position,
        resolve: (ok: boolean) => {
          clearTimeout(timer);
          this.waiters.delete(waiter);
          resolve(ok);
        },
      };
      const timer = setTimeout(() => {
        waiter.resolve(false);
      }, timeoutMs);
      this.waiters.add(waiter);
      this.wakeUp();
    });
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.unsubscribe();
    if (this.shared) this.pass?.leave(this);
    this.wakeUp();
    await this.loop;
    clearTimeout(this.saveTimer);
    this.save();
    await this.saving;
    for (const waiter of this.waiters) waiter.resolve(this.checkpoint >= waiter.position);
  }

  /** Called by the shared pass when it lets the group go. */
  release(): void {
    this.shared = false;
    const released = this.released;
    this.released = undefined;
    released?.();
  }

  /**
   * Handles the group's events of a batch of the shared pass (`events` are every topic of the
   * pass, up to `end`), then moves to `end`. False when a handler failed: the group leaves the
   * pass and retries on its own from its checkpoint.
   */
  async deliver(events: readonly RecordedEvent[], end: number): Promise<boolean> {
    if (this.stopping) return false;
    const mine = events.filter(
      (event) =>
        event.position > this.checkpoint && this.topics.has(streamCategory(event.streamId)),
    );
    if (mine.length > 0 && !(await this.handleBatch(mine, false))) return false;
    this.advance(end);
    return true;
  }

  /**
   * An append in this process wakes the loop when it wrote one of the group's topics. Otherwise,
   * when the group is idle and the append directly follows its position (no event of another
   * writer in between), the group is at the append's last position without reading anything.
   * A group in the shared pass leaves this to the pass.
   */
  private onAppend(notice: AppendNotice): void {
    if (this.shared) return;
    for (const category of notice.categories) {
      if (this.topics.has(category)) {
        this.dirty = true;
        this.wakeUp();
        return;
      }
    }
    if (this.idle && !this.dirty && notice.first === this.checkpoint + 1) this.advance(notice.last);
    else this.wakeUp();
  }

  private wakeUp(): void {
    if (this.shared) {
      this.pass?.wakeUp();
      return;
    }
    this.idle = false;
    this.wake?.();
  }

  /** Moves the group's position to `position` (when further) and saves it in time. */
  advance(position: number): void {
    if (!this.loaded || position <= this.checkpoint) return;
    this.checkpoint = position;
    for (const waiter of this.waiters) {
      if (position >= waiter.position) waiter.resolve(true);
    }
    this.scheduleSave();
  }

  private scheduleSave(): void {
    if (this.saveTimer !== undefined) return;
    const interval = this.bus.checkpointIntervalMs ?? 100;
    // On the interval's ticks: the groups of a bus save together, in one write.
    const now = Date.now();
    const delay = Math.ceil(Math.max(now, this.lastSaveAt + interval) / interval) * interval - now;
    this.saveTimer = setTimeout(() => {
      this.saveTimer = undefined;
      this.save();
    }, delay);
  }

  /** Writes the checkpoint; writes are chained, so they land in order. */
  private save(): void {
    if (!this.loaded || this.saved === this.checkpoint) return;
    this.bus.beforeCheckpoint?.();
    const position = this.checkpoint;
    this.saved = position;
    this.lastSaveAt = Date.now();
    this.saving = this.saving
      .then(() => this.bus.checkpoints.save(this.groupId, position))
      .catch((error: unknown) => {
        this.saved = -1;
        this.bus.logger.error({ err: error, groupId: this.groupId }, 'checkpoint not saved');
      });
  }

  private async run(): Promise<void> {
    const { store, pollMs = 250 } = this.bus;
    const batchSize = this.options.batchSize ?? 256;
    this.checkpoint = await this.bus.checkpoints.load(this.groupId);
    this.saved = this.checkpoint;
    this.loaded = true;
    for (const waiter of this.waiters) {
      if (this.checkpoint >= waiter.position) waiter.resolve(true);
    }
    while (!this.stopping) {
      if (this.pass?.join(this) === true) {
        // Not behind the shared pass: it reads for the group until it lets it go.
        await new Promise<void>((resolve) => {
          this.shared = true;
          this.released = resolve;
        });
        continue;
      }
      this.dirty = false;
      const head = await store.headPosition();
      const events = await store.readAll({
        after: this.checkpoint,
        categories: this.options.topics,
        limit: batchSize,
      });
      const batch = events.filter((event) => event.position <= head);
      if (batch.length > 0) await this.handleBatch(batch, true);
      if (this.stopping) break;
      if (batch.length === batchSize) await yieldToEventLoop();
      if (batch.length < batchSize && !this.dirty) {
        this.advance(head);
        if (this.pass?.join(this) === true) {
          await new Promise<void>((resolve) => {
            this.shared = true;
            this.released = resolve;
          });
          continue;
        }
        this.idle = true;
        await sleep(pollMs, (wake) => {
          this.wake = wake;
          if (wake !== undefined && !this.idle) wake();
        });
        this.idle = false;
        // Let appends made in the same turn of the event loop join the next read.
        await yieldToEventLoop();
      }
    }
  }

  /**
   * Handles `batch` (streams in parallel up to `concurrency`, each stream in order) and moves to
   * its last position when every event was handled. With `retry`, a failed event is retried
   * until it succeeds or the group stops; without, the first failure ends the batch (false).
   */
  private async handleBatch(batch: RecordedEvent[], retry: boolean): Promise<boolean> {
    const { handleBatch } = this.options;
    if (handleBatch !== undefined) {
      await pace();
      const handled = await this.attempt(() => handleBatch(batch), batch[0], retry);
      const last = batch[batch.length - 1];
      if (handled && last !== undefined) this.advance(last.position);
      return handled;
    }
    const byStream = new Map<string, RecordedEvent[]>();
    for (const event of batch) {
      const list = byStream.get(event.streamId);
      if (list === undefined) byStream.set(event.streamId, [event]);
      else list.push(event);
    }
    const partitions = [...byStream.values()];
    const concurrency = Math.max(1, this.options.concurrency ?? 1);
    let next = 0;
    let complete = true;
    const worker = async (): Promise<void> => {
      while (next < partitions.length && complete) {
        const partition = partitions[next++] ?? [];
        for (const event of partition) {
          await pace();
          if (!(await this.handleOne(event, retry))) {
            complete = false;
            return;
          }
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, partitions.length) }, worker));
    const last = batch[batch.length - 1];
    if (complete && last !== undefined) this.advance(last.position);
    return complete;
  }

  /** Handles one event, with `retry` until it succeeds (backoff); false when it did not. */
  private handleOne(event: RecordedEvent, retry: boolean): Promise<boolean> {
    return this.attempt(() => this.options.handle(event), event, retry);
  }

  /**
   * Runs `work` (the handling of `event`, or of a batch starting with it), with `retry` again
   * after a failure (backoff) until it succeeds or the group stops; false when it did not.
   */
  private async attempt(
    work: () => Promise<void>,
    event: RecordedEvent | undefined,
    retry: boolean,
  ): Promise<boolean> {
    let delay = this.bus.retryMs ?? 100;
    for (;;) {
      try {
        await work();
        return true;
      } catch (error) {
        this.bus.logger.error(
          { err: error, groupId: this.groupId, eventId: event?.id, type: event?.type },
          'event handler failed; retrying',
        );
        if (this.stopping || !retry) return false;
        await new Promise((resolve) => setTimeout(resolve, delay));
        delay = Math.min(delay * 2, 30_000);
      }
    }
  }
}
