import { join } from 'node:path';

import { temporaryDirectory } from '@stamp/testkit/temporary.ts';

import { openDatabase } from '../sqlite/database.ts';
import { leaseStoreContract } from './leases.contract.ts';
import { Lease, SqliteLeaseStore } from './leases.ts';

leaseStoreContract('embedded SQLite (memory)', () => {
  const db = openDatabase(':memory:');
  return Promise.resolve({
    leases: new SqliteLeaseStore(db),
    close: () => {
      db.close();
      return Promise.resolve();
    },
  });
});

describe('SqliteLeaseStore on one database file', () => {
  it('is shared by two connections, as by two processes on one host', async () => {
    const path = join(temporaryDirectory('stamp-leases-'), 'stamp.db');
    const first = openDatabase(path);
    const second = openDatabase(path);
    try {
      const one = new SqliteLeaseStore(first);
      const two = new SqliteLeaseStore(second);
      expect(await one.acquire('relay', 'process-1', 10_000)).toBe(true);
      expect(await two.acquire('relay', 'process-2', 10_000)).toBe(false);
      await one.release('relay', 'process-1');
      expect(await two.acquire('relay', 'process-2', 10_000)).toBe(true);
    } finally {
      first.close();
      second.close();
    }
  });
});

describe('Lease', () => {
  it('writes the lease when it is due, holds it in between, and gives it up', async () => {
    const db = openDatabase(':memory:');
    try {
      const store = new SqliteLeaseStore(db);
      const writes = (): number =>
        (db.prepare('SELECT total_changes() AS changes').get() as { changes: number }).changes;
      const mine = new Lease(store, 'timer-scheduler', 'a', 300);
      const theirs = new Lease(store, 'timer-scheduler', 'b', 300);
      expect(await mine.held()).toBe(true);
      const taken = writes();
      for (let poll = 0; poll < 5; poll += 1) expect(await mine.held()).toBe(true);
      // Held for two thirds of its time to live at least: no write until a third has passed.
      expect(writes()).toBe(taken);
      expect(await theirs.held()).toBe(false);
      await new Promise((resolve) => setTimeout(resolve, 120));
      expect(await mine.held()).toBe(true);
      expect(writes()).toBe(taken + 1);
      await mine.release();
      expect(await theirs.held()).toBe(true);
      expect(await mine.held()).toBe(false);
    } finally {
      db.close();
    }
  });
});
