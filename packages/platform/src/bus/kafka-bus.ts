import {
  Consumer as KafkaConsumer,
  type Message,
  type MessagesStream,
  stringDeserializers,
} from '@platformatic/kafka';
import type { Logger } from 'pino';

import type { RecordedEvent } from '../event-store/event-store.ts';
import type { Bus, ConsumeOptions, Consumer } from './bus.ts';
import { EnvelopeValidator } from './envelope.ts';
import { KafkaPublisher, type KafkaSettings, KafkaTopics } from './kafka.ts';

/** Options of {@link KafkaBus}. */
export interface KafkaBusOptions extends KafkaSettings {
  logger: Logger;
  /**
   * Log position up to which the relay has published every event (its checkpoint). Read-your-
   * writes waits for it before comparing the group's handled offsets with the topics' ends.
   */
  published: () => Promise<number>;
  /** First delay (ms) before a failed event is retried; doubles up to 30 s. Default 100. */
  retryMs?: number;
  /** Consumer session timeout, ms (default 10 000); a crashed member's partitions move after it. */
  sessionTimeoutMs?: number;
}

type StringMessage = Message<string, string, string, string>;

/**
 * The Bus on Kafka: one consumer group per `groupId` over the topics of its stream categories,
 * records keyed by stream id (so per-key order is partition order), offsets committed after the
 * records were handled (at-least-once), envelopes validated on the way in (invalid ones go to the
 * dead-letter topic and are skipped). Events reach the topics through the relay.
 */
export class KafkaBus implements Bus {
  private readonly options: KafkaBusOptions;
  readonly topics: KafkaTopics;
  private readonly validator = new EnvelopeValidator();
  private deadLetters: KafkaPublisher | undefined;
  private readonly consumers = new Set<KafkaGroupConsumer>();

  constructor(options: KafkaBusOptions) {
    this.options = options;
    this.topics = new KafkaTopics(options);
  }

  consume(options: ConsumeOptions): Consumer {
    const consumer = new KafkaGroupConsumer(this, this.options, options);
    this.consumers.add(consumer);
    return consumer;
  }

  /** Whether every consumer has joined its group and has its partitions. */
  ready(): boolean {
    return [...this.consumers].every((consumer) => consumer.assigned());
  }

  /** @internal validation shared by the group consumers. */
  validate(text: string): ReturnType<EnvelopeValidator['parse']> {
    return this.validator.parse(text);
  }

  /** @internal sends a refused record to the dead-letter topic. */
  async deadLetter(topic: string, key: string, value: string, reason: string): Promise<void> {
    this.deadLetters ??= new KafkaPublisher(this.options);
    const deadLetter = this.topics.deadLetter();
    await this.topics.ensure([deadLetter]);
    await this.deadLetters.publish([
      { topic: deadLetter, key, value: JSON.stringify({ reason, topic, value }) },
    ]);
  }

  /** Stops every consumer (committing what was handled), then closes the clients. */
  async close(): Promise<void> {
    await Promise.all([...this.consumers].map((consumer) => consumer.stop()));
    await this.deadLetters?.close();
    await this.topics.close();
  }

  /** @internal */
  forget(consumer: KafkaGroupConsumer): void {
    this.consumers.delete(consumer);
  }
}

const partitionKey = (topic: string, partition: number): string => `${topic}:${partition}`;

/**
 * One group member. Records of one partition are handled one after another (a partition holds
 * whole streams, so per-key order holds); partitions are handled side by side. After a record is
 * handled its offset is committed (coalesced by the client), so a restart or a rebalance redelivers
 * at most the records in flight.
 */
class KafkaGroupConsumer implements Consumer {
  readonly groupId: string;
  private readonly bus: KafkaBus;
  private readonly settings: KafkaBusOptions;
  private readonly options: ConsumeOptions;
  private readonly client: KafkaConsumer<string, string, string, string>;
  private readonly kafkaTopics: string[];
  private stream: MessagesStream<string, string, string, string> | undefined;
  /** Tail of each partition's chain of handled records. */
  private readonly lanes = new Map<string, Promise<void>>();
  /** Next offset to read (last handled + 1) per partition. */
  private readonly handled = new Map<string, bigint>();
  private pending = 0;
  private stopped = false;
  private joined = false;
  private readonly started: Promise<void>;

  constructor(bus: KafkaBus, settings: KafkaBusOptions, options: ConsumeOptions) {
    this.bus = bus;
    this.settings = settings;
    this.options = options;
    this.groupId = options.groupId;
    this.kafkaTopics = options.topics.map((category) => bus.topics.of(category));
    this.client = new KafkaConsumer({
      clientId: `${settings.clientId ?? 'stamp'}-${options.groupId}`,
      bootstrapBrokers: [...settings.brokers],
      groupId: options.groupId,
      deserializers: stringDeserializers,
      sessionTimeout: settings.sessionTimeoutMs ?? 10_000,
      heartbeatInterval: 1000,
      rebalanceTimeout: 30_000,
    });
    this.client.on('consumer:group:join', () => {
      this.joined = true;
    });
    this.client.on('consumer:group:rejoin', () => {
      this.joined = false;
    });
    this.started = this.start().catch((error: unknown) => {
      settings.logger.error({ err: error, groupId: this.groupId }, 'kafka consumer did not start');
    });
  }

  private async start(): Promise<void> {
    for (let delay = 200; !this.stopped; delay = Math.min(delay * 2, 5000)) {
      try {
        await this.bus.topics.ensure(this.kafkaTopics);
        break;
      } catch (error) {
        this.settings.logger.warn({ err: error, groupId: this.groupId }, 'kafka not reachable');
        await sleep(delay);
      }
    }
    if (this.stopped) return;
    const stream = await this.client.consume({
      topics: this.kafkaTopics,
      mode: 'committed',
      fallbackMode: 'earliest',
      autocommit: false,
      maxWaitTime: 200,
      // The client's default (50 MiB) delays the first record; a few MiB keep throughput.
      maxBytes: 4 * 1024 * 1024,
    });
    this.stream = stream;
    this.joined = true;
    stream.on('data', (message: StringMessage) => {
      this.enqueue(message);
    });
    stream.on('error', (error: Error) => {
      this.settings.logger.error({ err: error, groupId: this.groupId }, 'kafka stream failed');
    });
  }

  /** Whether the member has joined its group (and so holds its partitions). */
  assigned(): boolean {
    return this.joined && this.stream !== undefined;
  }

  private enqueue(message: StringMessage): void {
    const key = partitionKey(message.topic, message.partition);
    // A record this member already handled (fetched again after a rebalance) is not handled twice.
    if (message.offset < (this.handled.get(key) ?? 0n)) return;
    this.pending += 1;
    // Bounded buffering: stop fetching while too many records wait to be handled.
    const limit = Math.max(64, (this.options.batchSize ?? 256) * 4);
    if (this.pending >= limit) this.stream?.pause();
    const tail = this.lanes.get(key) ?? Promise.resolve();
    const next = tail.then(async () => {
      try {
        if (await this.handle(message)) {
          this.handled.set(key, message.offset + 1n);
          // Not awaited: the client coalesces commits per partition; closing flushes the last.
          const committing = message.commit();
          if (committing instanceof Promise) {
            committing.catch((error: unknown) => {
              this.settings.logger.warn({ err: error, groupId: this.groupId }, 'commit failed');
            });
          }
        }
      } catch (error) {
        this.settings.logger.error({ err: error, groupId: this.groupId }, 'record not handled');
      } finally {
        this.pending -= 1;
        if (this.pending < limit / 2 && !this.stopped) this.stream?.resume();
      }
    });
    this.lanes.set(key, next);
    void next.then(() => {
      if (this.lanes.get(key) === next) this.lanes.delete(key);
    });
  }

  /** Handles one record with retries; false when the consumer stopped before it succeeded. */
  private async handle(message: StringMessage): Promise<boolean> {
    if (this.stopped) return false;
    const checked = this.bus.validate(message.value);
    if (!checked.ok) {
      this.settings.logger.error(
        { groupId: this.groupId, topic: message.topic, offset: String(message.offset) },
        `invalid envelope sent to the dead-letter topic: ${checked.reason}`,
      );
      await this.bus.deadLetter(message.topic, message.key, message.value, checked.reason);
      return true;
    }
    const event: RecordedEvent = checked.event;
    let delay = this.settings.retryMs ?? 100;
    for (;;) {
      try {
        await this.options.handle(event);
        return true;
      } catch (error) {
        this.settings.logger.error(
          { err: error, groupId: this.groupId, eventId: event.id, type: event.type },
          'event handler failed; retrying',
        );
        if (this.stopped) return false;
        await sleep(delay);
        delay = Math.min(delay * 2, 30_000);
      }
    }
  }

  /**
   * Resolves true once the relay has published every event up to `position` and this member has
   * handled its partitions up to their ends as they were then; false after `timeoutMs` (ms).
   * Partitions held by other members of the group are theirs to wait for.
   */
  async waitFor(position: number, timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while ((await this.settings.published()) < position) {
      if (Date.now() >= deadline || this.stopped) return false;
      await sleep(10);
    }
    await this.started;
    while (!this.assigned()) {
      if (Date.now() >= deadline || this.stopped) return false;
      await sleep(10);
    }
    const ends = await this.client.listOffsets({ topics: this.kafkaTopics, timestamp: -1n });
    const assignments = this.client.assignments ?? [];
    // Partitions this member has read nothing from yet start at the group's committed offsets.
    const committed = await this.client.listCommittedOffsets({ topics: assignments });
    for (;;) {
      const behind = assignments.some(({ topic, partitions }) =>
        partitions.some((partition) => {
          const end = ends.get(topic)?.[partition] ?? 0n;
          const done = this.handled.get(partitionKey(topic, partition)) ?? 0n;
          const base = committed.get(topic)?.[partition] ?? 0n;
          return (done > base ? done : base) < end;
        }),
      );
      if (!behind) return true;
      if (Date.now() >= deadline || this.stopped) return false;
      await sleep(10);
    }
  }

  /** Stops fetching, lets the records in hand finish (or give up retrying), commits, leaves. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    await this.started;
    this.stream?.pause();
    await Promise.all([...this.lanes.values()]);
    await this.stream?.close();
    await this.client.close();
    this.bus.forget(this);
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
