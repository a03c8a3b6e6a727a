import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';

import { temporaryDirectory } from '@stamp/testkit/temporary.ts';

import { openDatabase } from './database.ts';

/**
 * A process that opens the new database at `DB`, takes its write lock while the file is still in
 * rollback mode (as a process switching it to WAL does), says so, and lets go after `HOLD_MS`
 * (long enough for the test to see the lock held, short of the busy timeout).
 */
const HOLDER = `
const { DatabaseSync } = require('node:sqlite');
const db = new DatabaseSync(process.env.DB);
db.exec('BEGIN IMMEDIATE; CREATE TABLE holder (value)');
process.stdout.write('locked\\n');
Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, Number(process.env.HOLD_MS));
db.exec('COMMIT');
db.close();
`;

describe('openDatabase', () => {
  it('waits for the write lock of another process on a new file, then puts it in WAL mode', async () => {
    const path = join(temporaryDirectory('stamp-database-'), 'stamp.db');
    const holder = spawn(process.execPath, ['-e', HOLDER], {
      env: { ...process.env, DB: path, HOLD_MS: '1500' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const exited = new Promise<number | null>((resolve) => holder.once('exit', resolve));
    await new Promise<void>((resolve, reject) => {
      holder.stdout.on('data', (chunk: Buffer) => {
        if (chunk.toString().includes('locked')) resolve();
      });
      holder.once('exit', () => {
        reject(new Error('the holder exited before it took the lock'));
      });
    });
    // SQLite itself answers "database is locked" here at once, the busy timeout notwithstanding.
    const alone = new DatabaseSync(path);
    expect(() => {
      alone.exec('PRAGMA busy_timeout = 5000; PRAGMA journal_mode = WAL');
    }).toThrow('database is locked');
    alone.close();

    const db = openDatabase(path);
    try {
      expect(db.prepare('PRAGMA journal_mode').get()).toEqual({ journal_mode: 'wal' });
      expect(db.prepare('SELECT count(*) AS rows FROM holder').get()).toEqual({ rows: 0 });
    } finally {
      db.close();
    }
    expect(await exited).toBe(0);
  });
});
