import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { temporaryDirectory } from '@stamp/testkit/temporary.ts';

import { openDatabase } from '../sqlite/database.ts';
import { eventStoreContract } from './event-store.contract.ts';
import { SqliteEventStore } from './sqlite-event-store.ts';

eventStoreContract('embedded SQLite (memory)', () =>
  Promise.resolve(new SqliteEventStore(openDatabase(':memory:'))),
);

describe('SqliteEventStore on disk', () => {
  it('keeps appended events across a reopen', async () => {
    const path = join(temporaryDirectory('stamp-es-'), 'stamp.db');
    const first = openDatabase(path);
    await new SqliteEventStore(first).append([
      {
        streamId: 'contact-1',
        expectedRevision: 'no_stream',
        events: [{ type: 'Created', data: { a: 1 } }],
      },
    ]);
    first.close();
    const second = openDatabase(path);
    const reopened = new SqliteEventStore(second);
    try {
      expect((await reopened.readStream('contact-1'))[0]?.data).toEqual({ a: 1 });
    } finally {
      await reopened.close();
      second.close();
    }
  });
});

describe('SqliteEventStore crypto-shredding on disk', () => {
  it('never writes subject data in plaintext and keeps no key after an erasure', async () => {
    const path = join(temporaryDirectory('stamp-es-'), 'stamp.db');
    const db = openDatabase(path);
    const store = new SqliteEventStore(db);
    try {
      const secret = 'grace.hopper.secret@example.com';
      await store.append([
        {
          streamId: 'contact-9',
          expectedRevision: 'no_stream',
          events: [{ type: 'Created', data: { email: secret }, metadata: { subjectId: '9' } }],
        },
      ]);
      const raw = () =>
        readFileSync(path).toString('latin1') + readFileSync(`${path}-wal`).toString('latin1');
      expect(raw()).not.toContain(secret);
      const key = () =>
        db.prepare('SELECT key FROM subject_keys WHERE subject_id = ?').get('9') as {
          key: Uint8Array | null;
        };
      const before = Buffer.from(key().key ?? []);
      expect(before).toHaveLength(32);
      await store.eraseSubject('9');
      expect(key().key).toBeNull();
      store.truncateLog();
      const bytes = Buffer.concat([readFileSync(path), readFileSync(`${path}-wal`)]);
      expect(bytes.indexOf(before)).toBe(-1);
    } finally {
      await store.close();
      db.close();
    }
  });
});
