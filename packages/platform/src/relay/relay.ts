import { randomUUID } from 'node:crypto';

import type { Logger } from 'pino';

import type { CheckpointStore } from '../bus/checkpoint-store.ts';
import { EnvelopeValidator } from '../bus/envelope.ts';
import type { KafkaPublisher, KafkaRecord, KafkaTopics } from '../bus/kafka.ts';
import { type EventStore, streamCategory } from '../event-store/event-store.ts';
import { Lease, type LeaseStore } from '../timers/leases.ts';

/** Name of the relay's lease and of its checkpoint. */
export const RELAY_LEASE = 'relay';

/** Options of {@link Relay}. */
export interface RelayOptions {
  store: EventStore;
  publisher: KafkaPublisher;
  topics: KafkaTopics;
  checkpoints: CheckpointStore;
  leases: LeaseStore;
  logger: Logger;
  /**
   * Lease time to live, ms (default 10 000); renewed once a third of it has passed
   * ({@link Lease}).
   */
  leaseTtlMs?: number;
  /** Events read and published per batch (default 500). */
  batchSize?: number;
  /**
   * Poll interval when caught up, ms (default 25): appends made by other processes wait at most
   * this long; appends in this process wake it at once.
   */
  pollMs?: number;
}

/**
 * The relay (architecture brief, "Ports"): follows the whole event log from its checkpoint and
 * publishes every event to the Kafka topic of its stream category, keyed by stream id, with the
 * event's `traceparent` as a header. Each envelope is validated first (ajv, contracts' JSON
 * Schemas); an invalid one goes to the dead-letter topic with the reason instead. The checkpoint
 * moves only after the brokers acknowledged the batch, so a crash republishes at most one batch
 * (consumers are idempotent). One relay is active per cluster: the holder of the `relay` lease.
 */
export class Relay {
  private readonly options: RelayOptions;
  private readonly lease: Lease;
  private readonly validator = new EnvelopeValidator();
  private stopped = false;
  private active = false;
  private published = 0;
  private wake: (() => void) | undefined;
  private unsubscribe: (() => void) | undefined;
  private loop: Promise<void> | undefined;

  constructor(options: RelayOptions) {
    this.options = options;
    this.lease = new Lease(options.leases, RELAY_LEASE, randomUUID(), options.leaseTtlMs ?? 10_000);
  }

  /** Starts following the log (in the background). */
  start(): void {
    this.unsubscribe = this.options.store.onAppend(() => this.wake?.());
    this.loop = this.run();
  }

  /** Whether this instance holds the lease and publishes. */
  isActive(): boolean {
    return this.active;
  }

  /** Log position up to which this instance has published and checkpointed. */
  position(): number {
    return this.published;
  }

  /** Finishes the batch in flight, checkpoints it, and gives the lease up. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.unsubscribe?.();
    this.wake?.();
    await this.loop;
    if (this.active) await this.lease.release();
    this.active = false;
  }

  private async run(): Promise<void> {
    const { logger, pollMs = 25, leaseTtlMs = 10_000 } = this.options;
    let delay = 100;
    while (!this.stopped) {
      try {
        const held = await this.lease.held();
        if (held !== this.active) {
          logger.info({ owner: this.lease.owner, held }, 'relay lease');
          // Taken (again): the checkpoint as the last holder left it.
          if (held) this.published = await this.options.checkpoints.load(RELAY_LEASE);
          this.active = held;
        }
        const published = this.active ? await this.publishBatch() : 0;
        delay = 100;
        if (published === 0) await this.sleep(this.active ? pollMs : leaseTtlMs / 3);
      } catch (error) {
        logger.error({ err: error }, 'relay batch failed; retrying');
        await this.sleep(delay);
        delay = Math.min(delay * 2, 10_000);
        // Re-read the checkpoint after a failure: another relay may have taken over meanwhile.
        this.active = false;
      }
    }
  }

  /** Publishes the next batch after the checkpoint; returns how many events it carried. */
  private async publishBatch(): Promise<number> {
    const { store, topics, publisher, checkpoints, logger, batchSize = 500 } = this.options;
    const events = await store.readAll({ after: this.published, limit: batchSize });
    const last = events.at(-1);
    if (last === undefined) return 0;
    const records: KafkaRecord[] = [];
    const deadLetter = topics.deadLetter();
    for (const event of events) {
      const topic = topics.of(streamCategory(event.streamId));
      const value = JSON.stringify(event);
      const checked = this.validator.check(JSON.parse(value));
      const headers: Record<string, string> = { 'stamp-event-type': event.type };
      if (event.metadata.traceparent !== undefined) {
        headers.traceparent = event.metadata.traceparent;
      }
      if (checked.ok) {
        records.push({ topic, key: event.streamId, value, headers });
      } else {
        logger.error(
          { eventId: event.id, type: event.type, position: event.position },
          `invalid envelope sent to the dead-letter topic: ${checked.reason}`,
        );
        records.push({
          topic: deadLetter,
          key: event.streamId,
          value: JSON.stringify({ reason: checked.reason, topic, envelope: event }),
          headers,
        });
      }
    }
    await topics.ensure([...new Set(records.map((record) => record.topic))]);
    await publisher.publish(records);
    await checkpoints.save(RELAY_LEASE, last.position);
    this.published = last.position;
    return events.length;
  }

  private sleep(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      function done(): void {
        clearTimeout(timer);
        resolve();
      }
      this.wake = done;
    }).finally(() => {
      this.wake = undefined;
    });
  }
}
