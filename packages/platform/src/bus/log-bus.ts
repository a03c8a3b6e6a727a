import type { Logger } from 'pino';

import type { EventStore, RecordedEvent } from '../event-store/event-store.ts';
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
}

/**
 * The embedded Bus: each consumer group reads the event log itself from its checkpoint, woken by
 * appends, and commits the checkpoint after each handled batch. Topics are stream categories and
 * the partition key is the stream id, as with the Kafka relay.
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
  private checkpoint: number;
  private stopped = false;
  private wake: (() => void) | undefined;
  private readonly waiters = new Set<{ position: number; resolve: (ok: boolean) => void }>();
  private readonly unsubscribe: () => void;
  private readonly loop: Promise<void>;

  constructor(bus: LogBusOptions, options: ConsumeOptions) {
    this.bus = bus;
    this.options = options;
    this.groupId = options.groupId;
    this.checkpoint = bus.checkpoints.load(options.groupId);
    this.unsubscribe = bus.store.onAppend(() => this.wake?.());
    this.loop = this.run();
  }

  position(): number {
    return this.checkpoint;
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
      this.wake?.();
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.unsubscribe();
    this.wake?.();
    await this.loop;
    for (const waiter of this.waiters) waiter.resolve(this.checkpoint >= waiter.position);
  }

  private advance(position: number): void {
    if (position <= this.checkpoint) return;
    this.checkpoint = position;
    this.bus.checkpoints.save(this.groupId, position);
    for (const waiter of this.waiters) {
      if (position >= waiter.position) waiter.resolve(true);
    }
  }

  private async run(): Promise<void> {
    const { store, pollMs = 250 } = this.bus;
    const batchSize = this.options.batchSize ?? 256;
    while (!this.stopped) {
      const head = await store.headPosition();
      const events = await store.readAll({
        after: this.checkpoint,
        categories: this.options.topics,
        limit: batchSize,
      });
      const batch = events.filter((event) => event.position <= head);
      if (batch.length > 0) await this.handleBatch(batch);
      if (this.stopped) break;
      if (batch.length < batchSize) {
        this.advance(head);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(done, pollMs);
          function done(): void {
            clearTimeout(timer);
            resolve();
          }
          this.wake = done;
        });
        this.wake = undefined;
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
