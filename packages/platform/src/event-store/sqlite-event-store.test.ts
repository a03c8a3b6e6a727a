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
  it('keeps appended events across a reopen, sealed ones opened with keys read from disk', async () => {
    const path = join(temporaryDirectory('stamp-es-'), 'stamp.db');
    const first = openDatabase(path);
    const sealed = (subject: string) => ({
      streamId: `contact-${subject}`,
      expectedRevision: 'no_stream' as const,
      events: [
        {
          type: 'Created',
          data: { email: `${subject}@example.com` },
          metadata: { subjectId: subject },
        },
      ],
    });
    await new SqliteEventStore(first).append([
      {
        streamId: 'contact-1',
        expectedRevision: 'no_stream',
        events: [{ type: 'Created', data: { a: 1 } }],
      },
      sealed('2'),
      sealed('3'),
    ]);
    first.close();
    const second = openDatabase(path);
    // Each store reads the keys from disk: one at a time, or together for a batch of the log.
    const alone = new SqliteEventStore(second);
    const batch = new SqliteEventStore(second);
    try {
      expect((await alone.readStream('contact-1'))[0]?.data).toEqual({ a: 1 });
      expect((await alone.readStream('contact-2'))[0]?.data).toEqual({ email: '2@example.com' });
      expect((await batch.readAll({ after: 0 })).map((event) => event.data)).toEqual([
        { a: 1 },
        { email: '2@example.com' },
        { email: '3@example.com' },
      ]);
    } finally {
      await alone.close();
      await batch.close();
      second.close();
    }
  });
});

describe('SqliteEventStore upgrade', () => {
  it('keeps the revisions of deleted streams from the earlier streams table', async () => {
    const db = openDatabase(':memory:');
    db.exec(`CREATE TABLE events (
        position INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE,
        stream_id TEXT NOT NULL, category TEXT NOT NULL, revision INTEGER NOT NULL,
        type TEXT NOT NULL, schema_version INTEGER NOT NULL, data TEXT NOT NULL,
        metadata TEXT NOT NULL, created_at INTEGER NOT NULL, UNIQUE (stream_id, revision));
      CREATE TABLE streams (stream_id TEXT PRIMARY KEY, revision INTEGER NOT NULL) WITHOUT ROWID;
      INSERT INTO events (id, stream_id, category, revision, type, schema_version, data,
        metadata, created_at) VALUES ('e1', 'kept-1', 'kept', 0, 'A', 1, '{}', '{}', 0);
      INSERT INTO streams VALUES ('kept-1', 0), ('gone-1', 4);`);
    const store = new SqliteEventStore(db);
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE name = 'streams'").all();
    expect(tables).toEqual([]);
    const next = { type: 'B', data: {} };
    const result = await store.append([
      { streamId: 'kept-1', expectedRevision: 0, events: [next] },
      { streamId: 'gone-1', expectedRevision: 4, events: [next] },
    ]);
    expect(result.revisions).toEqual({ 'kept-1': 1, 'gone-1': 5 });
    await store.close();
    db.close();
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
