import { closeSync, fstatSync, mkdirSync, openSync, readSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { DatabaseSync, type StatementSync } from 'node:sqlite';
import { Worker } from 'node:worker_threads';

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
  db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
  switchToWal(db);
  db.exec(`PRAGMA synchronous = ${options.synchronous ?? 'NORMAL'};
    PRAGMA temp_store = FILE;
    PRAGMA secure_delete = ON;
    PRAGMA wal_autocheckpoint = 1000;
    PRAGMA cache_size = ${-Math.round((options.cacheMb ?? DEFAULT_CACHE_MB) * 1024)};`);
  return db;
}

/** How long a connection waits for another one's lock before "database is locked", ms. */
export const BUSY_TIMEOUT_MS = 5000;
/** Pause between two tries of the switch to WAL, ms. */
const WAL_SWITCH_RETRY_MS = 10;
/** SQLite's primary result code for a lock held by another connection. */
const SQLITE_BUSY = 5;
const pause = new Int32Array(new SharedArrayBuffer(4));

/**
 * Puts the file of `db` in WAL mode (a no-op once it is). On a file still in rollback mode (a new
 * one, which several processes may open together) another connection holding the write lock
 * (its own switch, say) makes SQLite answer SQLITE_BUSY at once, without the busy handler, as
 * waiting while holding the read lock the switch took could deadlock
 * (https://sqlite.org/c3ref/busy_handler.html). The switch is tried again, its lock released,
 * every 10 ms for up to the busy timeout.
 *
 * @throws the last error ("database is locked") when the file stayed locked that long, or any
 *   other error of SQLite at once
 */
function switchToWal(db: DatabaseSync): void {
  const deadline = Date.now() + BUSY_TIMEOUT_MS;
  for (;;) {
    try {
      db.exec('PRAGMA journal_mode = WAL');
      return;
    } catch (error) {
      if ((error as { errcode?: unknown }).errcode !== SQLITE_BUSY || Date.now() >= deadline) {
        throw error;
      }
      Atomics.wait(pause, 0, 0, WAL_SWITCH_RETRY_MS);
    }
  }
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

/** How often the checkpoint thread copies the write-ahead log into the database file, ms. */
const CHECKPOINT_INTERVAL_MS = 250;
/** Size of the write-ahead log beyond which the checkpoint thread starts it over, bytes. */
const CHECKPOINT_RESTART_BYTES = 64 * 1024 * 1024;
/** The checkpoint thread ends after this long with little written (see below), ms. */
const CHECKPOINT_IDLE_MS = 10_000;
/** Log growth within {@link CHECKPOINT_IDLE_MS} below which writes are light, bytes. */
const CHECKPOINT_QUIET_BYTES = 1024 * 1024;
/** Log growth within one look (1 s) that starts the checkpoint thread, bytes. */
const CHECKPOINT_START_BYTES = 4 * 1024 * 1024;
/** SQLite's default `wal_autocheckpoint` (pages), for the times the thread does not run. */
const AUTOCHECKPOINT_PAGES = 1000;

/**
 * Where the write-ahead log at `path` stands: its size, bytes, and the checkpoint sequence
 * number of its header (big-endian at offset 12, SQLite's WAL format), which changes each time a
 * writer starts the log over after a checkpoint. Both are 0 when there is no log yet.
 */
export function logState(path: string): { bytes: number; sequence: number } {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return { bytes: 0, sequence: 0 };
  }
  try {
    const header = Buffer.alloc(16);
    const read = readSync(fd, header, 0, 16, 0);
    return {
      bytes: fstatSync(fd).size,
      sequence: read === 16 ? header.readUInt32BE(12) : 0,
    };
  } finally {
    closeSync(fd);
  }
}

/**
 * Moves the WAL checkpoints of `db` (the database file at `path`) to a thread of their own
 * (`checkpoint-thread.ts`) while writes are heavy: SQLite would otherwise copy the log into the
 * database file (and sync it) inside the commit that fills it past `wal_autocheckpoint`, on the
 * event loop of the platform. The thread starts when the log grew by 4 MiB within a second, or
 * was started over since the last look (the connection's own checkpoint ran, after about 4 MiB),
 * and ends once less than 1 MiB was written within `idleMs` (10 s), when the connection's own
 * checkpoints take over again (a quiet platform holds no thread) and it empties the log file
 * itself: a truncation by the thread's connection would move `data_version` for `db`, which
 * reads as another process's commit. Returns the function that stops it; the caller's own
 * checkpoints (a truncation after an erasure, at close) work as before. Nothing to do for
 * `:memory:`.
 */
export function startWalCheckpoints(
  db: DatabaseSync,
  path: string,
  { idleMs = CHECKPOINT_IDLE_MS }: { idleMs?: number } = {},
): () => Promise<void> {
  if (path === ':memory:') return () => Promise.resolve();
  const log = `${path}-wal`;
  let thread: Worker | undefined;
  let ended: Promise<void> = Promise.resolve();
  let last = logState(log);
  /** The log was emptied when the thread ended, and not written since. */
  let emptied = false;
  const start = (): void => {
    db.exec('PRAGMA wal_autocheckpoint = 0');
    const started = new Worker(join(import.meta.dirname, 'checkpoint-thread.ts'), {
      workerData: {
        path,
        intervalMs: CHECKPOINT_INTERVAL_MS,
        restartBytes: CHECKPOINT_RESTART_BYTES,
        idleMs,
        quietBytes: CHECKPOINT_QUIET_BYTES,
      },
    });
    // It keeps no process alive; an error of its own (the file is gone) leaves checkpoints to
    // the connection.
    started.unref();
    started.on('error', () => undefined);
    thread = started;
    ended = new Promise<void>((resolve) => {
      started.once('exit', () => {
        thread = undefined;
        if (db.isOpen) {
          db.exec(`PRAGMA wal_autocheckpoint = ${AUTOCHECKPOINT_PAGES}`);
          // Copied already: this only empties the file (and copies what came since). Without
          // waiting: while another process reads or writes, the log stays as it is.
          const { timeout } = db.prepare('PRAGMA busy_timeout').get() as { timeout: number };
          db.exec('PRAGMA busy_timeout = 0');
          try {
            db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
          } catch {
            // Not now (the file is gone, the connection busy): a later checkpoint empties it.
          } finally {
            db.exec(`PRAGMA busy_timeout = ${timeout}`);
          }
          last = logState(log);
          emptied = last.bytes === 0;
        }
        resolve();
      });
    });
  };
  const look = setInterval(() => {
    const now = logState(log);
    // Started over since the last look (the connection's own checkpoint ran, the log having
    // reached `wal_autocheckpoint`), or grown by 4 MiB without one. A log written again after
    // the thread's end emptied it has a header of its own: no sign of heavy writes.
    const restarted = now.sequence !== last.sequence && !emptied;
    if (now.bytes > 0) emptied = false;
    const heavy = restarted || now.bytes - last.bytes >= CHECKPOINT_START_BYTES;
    if (thread === undefined && heavy) start();
    last = now;
  }, 1000).unref();
  return async () => {
    clearInterval(look);
    // Kept alive until it has ended: an unreferenced thread's exit would not be waited for.
    thread?.ref();
    thread?.postMessage('stop');
    await ended;
  };
}
