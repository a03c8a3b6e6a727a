import type { RecordedEvent } from '../event-store/event-store.ts';

/**
 * Handler of one event. Throwing makes the consumer retry the same event (at-least-once delivery);
 * handlers must therefore be idempotent.
 */
export type EventHandler = (event: RecordedEvent) => Promise<void>;

/**
 * Handler of a batch: the group's events of one read, in log order (so each stream's events in
 * order). Throwing makes the consumer retry the whole batch; handlers must be idempotent.
 */
export type BatchHandler = (events: readonly RecordedEvent[]) => Promise<void>;

/** Options of {@link Bus.consume}. */
export interface ConsumeOptions {
  /** Consumer group id; the group's checkpoint is stored under it. */
  groupId: string;
  /** Topics to read: stream categories (`contact`, `email`, …), one topic per category. */
  topics: readonly string[];
  handle: EventHandler;
  /**
   * Handles the group's events of one read at once instead of calling `handle` for each (the
   * embedded bus reads batches; the Kafka bus calls `handle` record by record). A projection
   * gives both, with the same result: the batch form loads and writes its documents once per
   * batch and sums its counters. `concurrency` does not apply to it.
   */
  handleBatch?: BatchHandler;
  /**
   * Streams handled in parallel within a batch (default 1). Events of one stream (the partition
   * key) are always handled one after another, in order.
   */
  concurrency?: number;
  /** Events fetched per batch (default 256). */
  batchSize?: number;
  /**
   * Read the log in the group's own pass (embedded bus), never in the pass that groups of one
   * process share: for workers whose handlers wait on the network or on their own appends, so
   * that they never hold back the projections. Default false. The Kafka bus reads every group
   * on its own anyway.
   */
  ownPass?: boolean;
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
