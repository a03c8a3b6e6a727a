/**
 * Entry point of the WAL checkpoint thread (see `startWalCheckpoints` in `database.ts`): its own
 * connection to the database copies the write-ahead log into the database file every
 * `intervalMs` (a PASSIVE checkpoint: it never waits for, nor blocks, the writer). A log that
 * writes never pause long enough to empty grows past `restartBytes`: a RESTART checkpoint then
 * copies its last frames while the writer waits, so that the next write starts the log over.
 * The thread ends once nothing was written for `idleMs`, the log copied and started over; the
 * platform's connection then empties the file (a truncation by another connection would move
 * that connection's `data_version`, which reads as another process's commit and drops its
 * caches).
 */
import { DatabaseSync } from 'node:sqlite';
import { parentPort, workerData } from 'node:worker_threads';

const port = parentPort;
if (port === null) throw new Error('checkpoint-thread.ts runs as a worker thread');
const { path, intervalMs, restartBytes, idleMs } = workerData as {
  path: string;
  intervalMs: number;
  restartBytes: number;
  idleMs: number;
};

const db = new DatabaseSync(path);
db.exec('PRAGMA busy_timeout = 5000');
const pageSize = (db.prepare('PRAGMA page_size').get() as { page_size: number }).page_size;
const passive = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');
const restart = db.prepare('PRAGMA wal_checkpoint(RESTART)');

/** Frames in the log at the last tick, and since when it has not changed (ms). */
let lastFrames = -1;
let quietSince = Date.now();

function end(): void {
  clearInterval(timer);
  db.close();
  port?.close();
}

/** Ends after an idle spell, the log copied and started over. */
function endIdle(): void {
  try {
    restart.get();
  } catch {
    // Written to meanwhile: the log stays; the platform's own checkpoints take over.
  }
  end();
}

const timer = setInterval(() => {
  try {
    // `log`: frames in the log since it last started over; `checkpointed`: of them, copied.
    const { log } = passive.get() as { log: number; checkpointed: number };
    if (log * pageSize > restartBytes) restart.get();
    if (log !== lastFrames) {
      lastFrames = log;
      quietSince = Date.now();
    } else if (Date.now() - quietSince > idleMs) {
      endIdle();
    }
  } catch {
    // Busy with another checkpoint (a truncation after an erasure): the next tick does it.
  }
}, intervalMs);

port.on('message', (message: unknown) => {
  if (message === 'stop') end();
});
