import type { RecordedEvent } from '../event-store/event-store.ts';

/**
 * Handler of one event. Throwing makes the consumer retry the same event (at-least-once delivery);
 * handlers must therefore be idempotent.
 */
export type EventHandler = (event: RecordedEvent) => Promise<void>;

/** Options of {@link Bus.consume}. */
export interface ConsumeOptions {
  /** Consumer group id; the group's checkpoint is stored under it. */
  groupId: string;
  /** Topics to read: stream categories (`contact`, `email`, …), one topic per category. */
  topics: readonly string[];
  handle: EventHandler;
  /**
   * Streams handled in parallel within a batch (default 1). Events of one stream (the partition
   * key) are always handled one after another, in order.
   */
  concurrency?: number;
  /** Events fetched per batch (default 256). */
  batchSize?: number;
}

/** A running consumer of one group. */
export interface Consumer {
  readonly groupId: string;
  /**
   * Resolves true once {@link position} reaches `position`, false after `timeoutMs` (ms).
   * This is how the gateway waits for its own writes to reach the views.
   */
  waitFor(position: number, timeoutMs: number): Promise<boolean>;
  /** Stops after the batch in progress and commits its checkpoint. */
  stop(): Promise<void>;
}

/**
 * The Bus port (architecture brief): consumer groups reading topics with at-least-once delivery,
 * per-key order and commit after handling. Embedded adapter: {@link LogBus} over the event log.
 */
export interface Bus {
  consume(options: ConsumeOptions): Consumer;
}
