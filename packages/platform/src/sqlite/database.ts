import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { DatabaseSync, type StatementSync } from 'node:sqlite';

/** Options for {@link openDatabase}. */
export interface DatabaseOptions {
  /**
   * `synchronous` pragma. `NORMAL` (default) keeps every committed write across a process crash
   * (`kill -9`) in WAL mode; `FULL` also survives power loss at the cost of an fsync per commit.
   */
  synchronous?: 'NORMAL' | 'FULL';
  /**
   * SQLite's page cache of the connection, MiB (default 64): the pages of the event log, the
   * views and their indexes kept in memory. The embedded platform's memory is this cache plus
   * a few bounded buffers, whatever the size of the data.
   */
  cacheMb?: number;
}

/** Default page cache of a connection, MiB. */
export const DEFAULT_CACHE_MB = 64;

/**
 * Opens (creating if needed) the embedded SQLite database at `path` (`:memory:` for tests) in WAL
 * mode. One database file holds the event log, checkpoints, leases and the embedded views.
 * `secure_delete` is on: deleted content (erased keys, removed view documents) is overwritten.
 */
export function openDatabase(path: string, options: DatabaseOptions = {}): DatabaseSync {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const db = new DatabaseSync(path);
  // The busy timeout first: a process that opens the file while another one switches it to WAL
  // waits for that switch instead of failing with "database is locked".
  db.exec(`PRAGMA busy_timeout = 5000;
    PRAGMA journal_mode = WAL;
    PRAGMA synchronous = ${options.synchronous ?? 'NORMAL'};
    PRAGMA temp_store = FILE;
    PRAGMA secure_delete = ON;
    PRAGMA wal_autocheckpoint = 1000;
    PRAGMA cache_size = ${-Math.round((options.cacheMb ?? DEFAULT_CACHE_MB) * 1024)};`);
  return db;
}

/**
 * Runs `work` inside `BEGIN IMMEDIATE … COMMIT`, rolling back when it throws. `work` must be
 * synchronous: node:sqlite is, and no other statement can interleave with the transaction.
 */
export function transaction<T>(db: DatabaseSync, work: () => T): T {
  let control = controls.get(db);
  if (control === undefined) {
    control = {
      begin: db.prepare('BEGIN IMMEDIATE'),
      commit: db.prepare('COMMIT'),
      rollback: db.prepare('ROLLBACK'),
    };
    controls.set(db, control);
  }
  control.begin.run();
  try {
    const result = work();
    control.commit.run();
    return result;
  } catch (error) {
    control.rollback.run();
    throw error;
  }
}

const controls = new WeakMap<
  DatabaseSync,
  { begin: StatementSync; commit: StatementSync; rollback: StatementSync }
>();
