/**
 * Entry point of the WAL checkpoint thread (see `startWalCheckpoints` in `database.ts`): its own
 * connection to the database copies the write-ahead log into the database file every
 * `intervalMs` (a PASSIVE checkpoint: it never waits for, nor blocks, the writer). A log that
 * writes never pause long enough to empty grows past `restartBytes`: a RESTART checkpoint then
 * copies its last frames while the writer waits, so that the next write starts the log over.
 * The thread ends once fewer than `quietBytes` were written within `idleMs` (writes are light:
 * the leases of the schedulers, a request now and then), the log copied and started over; the
 * platform's connection then empties the file (a truncation by another connection would move
 * that connection's `data_version`, which reads as another process's commit and drops its
 * caches).
 */
import { DatabaseSync } from 'node:sqlite';
import { parentPort, workerData } from 'node:worker_threads';

import { BUSY_TIMEOUT_MS, logState } from './database.ts';

const port = parentPort;
if (port === null) throw new Error('checkpoint-thread.ts runs as a worker thread');
const { path, intervalMs, restartBytes, idleMs, quietBytes } = workerData as {
  path: string;
  intervalMs: number;
  restartBytes: number;
  idleMs: number;
  quietBytes: number;
};

const db = new DatabaseSync(path);
db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
const pageSize = (db.prepare('PRAGMA page_size').get() as { page_size: number }).page_size;
const passive = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');
const restart = db.prepare('PRAGMA wal_checkpoint(RESTART)');

/**
 * Frames in the log and its checkpoint sequence at the last tick; frames written since
 * `windowStartedAt` (epoch ms).
 */
let lastFrames = 0;
let lastSequence = logState(`${path}-wal`).sequence;
let written = 0;
let windowStartedAt = Date.now();

function end(): void {
  clearInterval(timer);
  db.close();
  port?.close();
}

/** Ends after a quiet spell, the log copied and started over. */
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
    // A log started over since the last tick (at most once: only this thread checkpoints it)
    // holds only frames written since.
    const { sequence } = logState(`${path}-wal`);
    written += sequence === lastSequence ? log - lastFrames : log;
    lastFrames = log;
    lastSequence = sequence;
    if (Date.now() - windowStartedAt >= idleMs) {
      if (written * pageSize < quietBytes) {
        endIdle();
        return;
      }
      written = 0;
      windowStartedAt = Date.now();
    }
  } catch {
    // Busy with another checkpoint (a truncation after an erasure): the next tick does it.
  }
}, intervalMs);

port.on('message', (message: unknown) => {
  if (message === 'stop') end();
});
