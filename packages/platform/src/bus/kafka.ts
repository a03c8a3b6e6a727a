import { Admin, Producer, ProduceAcks, stringSerializers } from '@platformatic/kafka';
import { DEAD_LETTER_TOPIC, DEFAULT_TOPIC_PREFIX, topicName } from '@stamp/contracts';

/**
 * Connection settings shared by the Kafka adapters (bus, relay): brokers, topic naming and the
 * partition count of the topics they create.
 */
export interface KafkaSettings {
  /** Bootstrap brokers, `host:port`. */
  brokers: readonly string[];
  /** Prefix of every topic name (default `stamp.`): topic = prefix + stream category. */
  topicPrefix?: string;
  /** Partitions of each topic created (default 6); at least the replicas of a consumer group. */
  partitions?: number;
  /** Client id reported to the brokers (default `stamp`). */
  clientId?: string;
}

/** One Kafka record to publish: key = partition key (stream id), value = JSON text. */
export interface KafkaRecord {
  topic: string;
  key: string;
  value: string;
  headers?: Record<string, string>;
}

/**
 * Topic names and creation. Topics are created on first use with the configured partitions
 * (`auto.create.topics.enable` is off on the brokers Stamp is tested with); an existing topic is
 * left as it is.
 */
export class KafkaTopics {
  readonly prefix: string;
  private readonly admin: Admin;
  private readonly partitions: number;
  private readonly known = new Set<string>();

  constructor(settings: KafkaSettings) {
    this.prefix = settings.topicPrefix ?? DEFAULT_TOPIC_PREFIX;
    this.partitions = settings.partitions ?? 6;
    this.admin = new Admin({
      clientId: `${settings.clientId ?? 'stamp'}-admin`,
      bootstrapBrokers: [...settings.brokers],
    });
  }

  /** Topic of a stream category. */
  of(category: string): string {
    return topicName(this.prefix, category);
  }

  /** The dead-letter topic: envelopes that failed validation, with the reason. */
  deadLetter(): string {
    return topicName(this.prefix, DEAD_LETTER_TOPIC);
  }

  /** Creates the topics that do not exist yet. */
  async ensure(topics: readonly string[]): Promise<void> {
    const missing = topics.filter((topic) => !this.known.has(topic));
    if (missing.length === 0) return;
    const existing = new Set(await this.admin.listTopics());
    const create = missing.filter((topic) => !existing.has(topic));
    if (create.length > 0) {
      try {
        await this.admin.createTopics({
          topics: create,
          partitions: this.partitions,
          replicas: -1,
        });
      } catch (error) {
        // Another process may have created them first; anything else shows up below.
        const now = new Set(await this.admin.listTopics());
        if (!create.every((topic) => now.has(topic))) throw error;
      }
    }
    for (const topic of missing) this.known.add(topic);
  }

  /** Topics whose names start with the prefix (tests, benchmarks). */
  async list(): Promise<string[]> {
    return (await this.admin.listTopics()).filter((topic) => topic.startsWith(this.prefix));
  }

  /** Deletes topics (tests, benchmarks). */
  async delete(topics: readonly string[]): Promise<void> {
    if (topics.length > 0) await this.admin.deleteTopics({ topics: [...topics] });
    for (const topic of topics) this.known.delete(topic);
  }

  async close(): Promise<void> {
    await this.admin.close();
  }
}

/**
 * Publishes records with acknowledgement by every in-sync replica (`acks=all`) from an
 * idempotent producer, so a retried request neither duplicates nor reorders a partition's records.
 */
export class KafkaPublisher {
  private readonly producer: Producer<string, string, string, string>;

  constructor(settings: KafkaSettings) {
    this.producer = new Producer({
      clientId: `${settings.clientId ?? 'stamp'}-producer`,
      bootstrapBrokers: [...settings.brokers],
      serializers: stringSerializers,
      idempotent: true,
      acks: ProduceAcks.ALL,
    });
  }

  /** Resolves once the brokers acknowledged every record. */
  async publish(records: readonly KafkaRecord[]): Promise<void> {
    if (records.length === 0) return;
    await this.producer.send({
      messages: records.map((record) => ({
        topic: record.topic,
        key: record.key,
        value: record.value,
        headers: record.headers ?? {},
      })),
    });
  }

  async close(): Promise<void> {
    await this.producer.close();
  }
}
