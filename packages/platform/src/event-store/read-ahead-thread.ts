/**
 * Entry point of the read-ahead thread of the embedded event store (see `read-ahead.ts`): its own
 * connection to the database reads the batches of the log it is asked for, opens their sealed
 * data, and answers each with the batch as JSON text (one `JSON.parse` for the event loop, which
 * parses the events' data and metadata anyway). Subject keys are read again for every batch, so
 * an erasure committed before a request is always seen.
 */
import { DatabaseSync } from 'node:sqlite';
import { parentPort, workerData } from 'node:worker_threads';

import { BUSY_TIMEOUT_MS } from '../sqlite/database.ts';
import { LogReader } from './log-reader.ts';
import type { ReadAheadAnswer, ReadAheadRequest } from './read-ahead.ts';
import { SubjectKeys } from './subject-keys.ts';

const port = parentPort;
if (port === null) throw new Error('read-ahead-thread.ts runs as a worker thread');
const { path } = workerData as { path: string };

const db = new DatabaseSync(path);
db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
const keys = new SubjectKeys(db);
const reader = new LogReader(db, keys);

port.on('message', (message: ReadAheadRequest | 'stop') => {
  if (message === 'stop') {
    db.close();
    port.close();
    return;
  }
  const { id, ...options } = message;
  let answer: ReadAheadAnswer;
  try {
    keys.forget();
    answer = { id, json: JSON.stringify(reader.readAll(options)) };
  } catch (error) {
    answer = { id, error: error instanceof Error ? error.message : String(error) };
  }
  port.postMessage(answer);
});
