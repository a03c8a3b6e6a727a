import { join } from 'node:path';

import {
  type Bus,
  type CheckpointStore,
  type EventStore,
  type LeaseStore,
  LogBus,
  type Logger,
  openDatabase,
  startWalCheckpoints,
  SqliteCheckpointStore,
  SqliteEventStore,
  SqliteLeaseStore,
  SqliteViewStore,
  TracedEventStore,
  tracedBatchHandler,
  tracedHandler,
  type ViewStore,
} from '@stamp/platform';
import {
  KafkaBus,
  type KafkaSettings,
  KurrentDbEventStore,
  MongoCheckpointStore,
  MongoLeaseStore,
  MongoViewStore,
  RELAY_LEASE,
} from '@stamp/platform/distributed.ts';
import type { ProcessEnv } from './config.ts';

/** The ports of one process, each on the adapter its configuration chose. */
export interface Platform {
  /** The event store, traced: appends carry the request's trace context to the consumers. */
  store: EventStore;
  /** The bus, traced: each handled event is a span under the append that recorded it. */
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
 * (its checkpoints and leases beside it), Kafka as the bus and MongoDB for the views. With
 * KurrentDB, checkpoints and leases live in MongoDB (`checkpoints`, `leases` collections).
 * @throws Error when an engine is unreachable at start.
 */
export async function openPlatform(env: ProcessEnv, logger: Logger): Promise<Platform> {
  const closers: (() => Promise<void> | void)[] = [];
  const close = async (): Promise<void> => {
    for (const closer of closers.reverse()) await closer();
  };
  try {
    let mongo: MongoViewStore | undefined;
    if (env.STAMP_VIEWS === 'mongodb') {
      const connected = await MongoViewStore.connect(env.STAMP_MONGODB_URL ?? '', {
        client: { serverSelectionTimeoutMS: 10_000 },
      });
      mongo = connected;
      closers.push(() => connected.close());
    }

    let store: EventStore;
    let checkpoints: CheckpointStore;
    let leases: LeaseStore;
    let views: ViewStore;
    let flushViews: (() => void) | undefined;
    if (env.STAMP_EVENT_STORE === 'embedded') {
      const path = join(env.STAMP_DATA_DIR, 'stamp.db');
      const db = openDatabase(path, {
        synchronous: env.STAMP_DURABILITY,
        cacheMb: env.STAMP_CACHE_MB,
      });
      const stopCheckpoints = startWalCheckpoints(db, path);
      const sqlite = new SqliteEventStore(db);
      closers.push(async () => {
        await stopCheckpoints();
        // Leaves no erased bytes in the write-ahead log (crypto-shredding, stream deletion).
        sqlite.truncateLog();
        db.close();
      });
      closers.push(() => sqlite.close());
      store = sqlite;
      checkpoints = new SqliteCheckpointStore(db);
      leases = new SqliteLeaseStore(db);
      if (mongo === undefined) {
        const embeddedViews = new SqliteViewStore(db);
        closers.push(() => embeddedViews.close());
        views = embeddedViews;
        flushViews = () => {
          embeddedViews.flushSync();
        };
      } else {
        views = mongo;
      }
    } else {
      if (mongo === undefined)
        throw new Error('STAMP_EVENT_STORE=kurrentdb needs STAMP_VIEWS=mongodb');
      const kurrent = new KurrentDbEventStore({ connectionString: env.STAMP_KURRENTDB_URL ?? '' });
      closers.push(() => kurrent.close());
      store = kurrent;
      views = mongo;
      checkpoints = new MongoCheckpointStore(mongo.db);
      leases = new MongoLeaseStore(mongo.db);
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
    const untraced = bus;
    return {
      store: new TracedEventStore(store),
      bus: {
        consume: (options) =>
          untraced.consume({
            ...options,
            handle: tracedHandler(options.groupId, options.handle),
            ...(options.handleBatch === undefined
              ? {}
              : { handleBatch: tracedBatchHandler(options.groupId, options.handleBatch) }),
          }),
      },
      views,
      checkpoints,
      leases,
      kafka,
      consumersReady,
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
