import { join } from 'node:path';

import {
  type Bus,
  type CheckpointStore,
  type EventStore,
  KafkaBus,
  type KafkaSettings,
  MongoViewStore,
  type LeaseStore,
  LogBus,
  type Logger,
  openDatabase,
  RELAY_LEASE,
  SqliteCheckpointStore,
  SqliteEventStore,
  SqliteLeaseStore,
  SqliteViewStore,
  type ViewStore,
} from '@stamp/platform';

import type { ProcessEnv } from './config.ts';

/** The ports of one process, each on the adapter its configuration chose. */
export interface Platform {
  store: EventStore;
  bus: Bus;
  views: ViewStore;
  checkpoints: CheckpointStore;
  leases: LeaseStore;
  /** Kafka settings when the bus is Kafka (the relay publishes with them). */
  kafka: KafkaSettings | undefined;
  /** Whether the bus's consumers have joined their groups (always true on the embedded bus). */
  consumersReady(): boolean;
  /** Closes every adapter; consumers must have been stopped first. */
  close(): Promise<void>;
}

/**
 * Opens the adapters `env` names for each port (architecture brief, "Two modes"), so a process can
 * mix them: for example the embedded event store on a disk shared by the processes of one host
 * (its checkpoints and leases beside it), Kafka as the bus and MongoDB for the views.
 * @throws Error when an engine is unreachable at start.
 */
export async function openPlatform(env: ProcessEnv, logger: Logger): Promise<Platform> {
  const closers: (() => Promise<void> | void)[] = [];
  if (env.STAMP_EVENT_STORE !== 'embedded') {
    throw new Error(`STAMP_EVENT_STORE=${env.STAMP_EVENT_STORE} is not wired into processes yet`);
  }
  const db = openDatabase(join(env.STAMP_DATA_DIR, 'stamp.db'), {
    synchronous: env.STAMP_DURABILITY,
  });
  const sqliteStore = new SqliteEventStore(db);
  const store: EventStore = sqliteStore;
  const checkpoints: CheckpointStore = new SqliteCheckpointStore(db);
  const leases: LeaseStore = new SqliteLeaseStore(db);

  let views: ViewStore;
  let flushViews: (() => void) | undefined;
  if (env.STAMP_VIEWS === 'embedded') {
    const sqliteViews = new SqliteViewStore(db);
    views = sqliteViews;
    flushViews = () => {
      sqliteViews.flushSync();
    };
  } else {
    views = await MongoViewStore.connect(env.STAMP_MONGODB_URL ?? '', {
      client: { serverSelectionTimeoutMS: 10_000 },
    });
  }

  let bus: Bus;
  let kafka: KafkaSettings | undefined;
  let consumersReady = (): boolean => true;
  if (env.STAMP_BUS === 'kafka') {
    kafka = {
      brokers: env.STAMP_KAFKA_BROKERS,
      topicPrefix: env.STAMP_KAFKA_TOPIC_PREFIX,
      partitions: env.STAMP_KAFKA_PARTITIONS,
    };
    const kafkaBus = new KafkaBus({
      ...kafka,
      logger,
      published: () => checkpoints.load(RELAY_LEASE),
    });
    bus = kafkaBus;
    consumersReady = () => kafkaBus.ready();
    closers.push(() => kafkaBus.close());
  } else {
    bus = new LogBus({ store, checkpoints, logger, beforeCheckpoint: flushViews });
  }

  return {
    store,
    bus,
    views,
    checkpoints,
    leases,
    kafka,
    consumersReady,
    async close() {
      for (const close of closers.reverse()) await close();
      await store.close();
      await views.close();
      sqliteStore.truncateLog();
      db.close();
    },
  };
}
