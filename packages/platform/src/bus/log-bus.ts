import type { Logger } from 'pino';

import type { AppendNotice, EventStore, RecordedEvent } from '../event-store/event-store.ts';
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
}

/**
 * The embedded Bus: each consumer group reads the event log itself from its checkpoint, woken by
 * appends to its topics, and commits the checkpoint after handled batches. Topics are stream
 * categories and the partition key is the stream id, as with the Kafka relay.
 */
export class LogBus implements Bus {
  private readonly options: LogBusOptions;

  constructor(options: LogBusOptions) {
    this.options = options;
  }

  consume(options: ConsumeOptions): Consumer {
    return new LogConsumer(this.options, options);
  }
}

class LogConsumer implements Consumer {
  readonly groupId: string;
  private readonly bus: LogBusOptions;
  private readonly options: ConsumeOptions;
  private readonly topics: ReadonlySet<string>;
  /** Position handled in memory; `saved` is what the checkpoint store holds. */
  private checkpoint: number;
  private saved: number;
  /** Set once the stored checkpoint was loaded; nothing is saved before. */
  private loaded = false;
  private saving: Promise<void> = Promise.resolve();
  private saveTimer: NodeJS.Timeout | undefined;
  private lastSaveAt = 0;
  private stopped = false;
  /** Set while the loop sleeps with nothing left to read; cleared by a wake. */
  private idle = false;
  /** Set by an append to one of the topics; cleared when the loop starts a read. */
  private dirty = false;
  private wake: (() => void) | undefined;
  private readonly waiters = new Set<{ position: number; resolve: (ok: boolean) => void }>();
  private readonly unsubscribe: () => void;
  private readonly loop: Promise<void>;

  constructor(bus: LogBusOptions, options: ConsumeOptions) {
    this.bus = bus;
    this.options = options;
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
    this.stopped = true;
    this.unsubscribe();
    this.wakeUp();
    await this.loop;
    clearTimeout(this.saveTimer);
    this.save();
    await this.saving;
    for (const waiter of this.waiters) waiter.resolve(this.checkpoint >= waiter.position);
  }

  /**
   * An append in this process wakes the loop when it wrote one of the group's topics. Otherwise,
   * when the group is idle and the append directly follows its position (no event of another
   * writer in between), the group is at the append's last position without reading anything.
   */
  private onAppend(notice: AppendNotice): void {
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
    this.idle = false;
    this.wake?.();
  }

  private advance(position: number): void {
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
    const delay = Math.max(0, this.lastSaveAt + interval - Date.now());
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
    while (!this.stopped) {
      this.dirty = false;
      const head = await store.headPosition();
      const events = await store.readAll({
        after: this.checkpoint,
        categories: this.options.topics,
        limit: batchSize,
      });
      const batch = events.filter((event) => event.position <= head);
      if (batch.length > 0) await this.handleBatch(batch);
      if (this.stopped) break;
      // The embedded adapters answer without I/O: yield to timers and sockets between batches,
      // or a backlog would hold the event loop (HTTP, checkpoint saves, view flushes) until done.
      if (batch.length === batchSize) await new Promise((resolve) => setImmediate(resolve));
      if (batch.length < batchSize && !this.dirty) {
        this.advance(head);
        this.idle = true;
        await new Promise<void>((resolve) => {
          const timer = setTimeout(done, pollMs);
          function done(): void {
            clearTimeout(timer);
            resolve();
          }
          this.wake = done;
          if (!this.idle) done();
        });
        this.wake = undefined;
        this.idle = false;
        // Let appends made in the same turn of the event loop join the next read.
        await new Promise((resolve) => setImmediate(resolve));
      }
    }
  }

  private async handleBatch(batch: RecordedEvent[]): Promise<void> {
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
          if (!(await this.handleWithRetry(event))) {
            complete = false;
            return;
          }
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, partitions.length) }, worker));
    const last = batch[batch.length - 1];
    if (complete && last !== undefined) this.advance(last.position);
  }

  /** Handles one event, retrying with backoff; false when the consumer stopped first. */
  private async handleWithRetry(event: RecordedEvent): Promise<boolean> {
    let delay = this.bus.retryMs ?? 100;
    for (;;) {
      try {
        await this.options.handle(event);
        return true;
      } catch (error) {
        this.bus.logger.error(
          { err: error, groupId: this.groupId, eventId: event.id, type: event.type },
          'event handler failed; retrying',
        );
        if (this.stopped) return false;
        await new Promise((resolve) => setTimeout(resolve, delay));
        delay = Math.min(delay * 2, 30_000);
      }
    }
  }
}
