import { join } from 'node:path';
import type { DatabaseSync } from 'node:sqlite';

import type { Logger } from 'pino';

import type { Bus } from './bus/bus.ts';
import { type CheckpointStore, SqliteCheckpointStore } from './bus/checkpoint-store.ts';
import { LogBus } from './bus/log-bus.ts';
import { SqliteEventStore } from './event-store/sqlite-event-store.ts';
import { openDatabase, startWalCheckpoints } from './sqlite/database.ts';
import { type LeaseStore, SqliteLeaseStore } from './timers/leases.ts';
import { SqliteViewStore, type SqliteViewStoreOptions } from './views/sqlite-view-store.ts';
import type { ViewStore } from './views/view-store.ts';

/** The embedded adapters of every port, on one SQLite database. */
export interface EmbeddedPlatform {
  db: DatabaseSync;
  store: SqliteEventStore;
  bus: Bus;
  checkpoints: CheckpointStore;
  views: ViewStore;
  leases: LeaseStore;
  close(): Promise<void>;
}

/**
 * Opens the embedded platform in `dataDir` (file `stamp.db`), or in memory when `dataDir` is
 * `:memory:` (tests).
 */
export function openEmbeddedPlatform(options: {
  dataDir: string;
  logger: Logger;
  synchronous?: 'NORMAL' | 'FULL';
  /** SQLite page cache, MiB (see `openDatabase`). */
  cacheMb?: number;
  pollMs?: number;
  /** How the view store holds changes before writing them (see `SqliteViewStoreOptions`). */
  views?: SqliteViewStoreOptions;
}): EmbeddedPlatform {
  const path = options.dataDir === ':memory:' ? ':memory:' : join(options.dataDir, 'stamp.db');
  const db = openDatabase(path, { synchronous: options.synchronous, cacheMb: options.cacheMb });
  const stopCheckpoints = startWalCheckpoints(db, path);
  const store = new SqliteEventStore(db);
  const checkpoints = new SqliteCheckpointStore(db);
  const views = new SqliteViewStore(db, options.views);
  const leases = new SqliteLeaseStore(db);
  const bus = new LogBus({
    store,
    checkpoints,
    logger: options.logger,
    pollMs: options.pollMs,
    beforeCheckpoint: () => {
      views.flushSync();
    },
  });
  return {
    db,
    store,
    bus,
    checkpoints,
    views,
    leases,
    async close() {
      await store.close();
      await views.close();
      await stopCheckpoints();
      // Leaves no erased bytes in the write-ahead log (crypto-shredding, stream deletion).
      store.truncateLog();
      db.close();
    },
  };
}
