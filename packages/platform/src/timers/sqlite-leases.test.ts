import { join } from 'node:path';

import { temporaryDirectory } from '@stamp/testkit/temporary.ts';

import { openDatabase } from '../sqlite/database.ts';
import { leaseStoreContract } from './leases.contract.ts';
import { SqliteLeaseStore } from './leases.ts';

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
