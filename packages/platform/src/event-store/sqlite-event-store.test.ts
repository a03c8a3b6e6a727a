import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DatabaseSync } from 'node:sqlite';
import { setTimeout } from 'node:timers/promises';

import { temporaryDirectory } from '@stamp/testkit/temporary.ts';

import { openDatabase } from '../sqlite/database.ts';
import { eventStoreContract } from './event-store.contract.ts';
import type { RecordedEvent } from './event-store.ts';
import { SqliteEventStore } from './sqlite-event-store.ts';

eventStoreContract('embedded SQLite (memory)', () =>
  Promise.resolve(new SqliteEventStore(openDatabase(':memory:'))),
);

eventStoreContract('embedded SQLite (file, batches read ahead)', () =>
  Promise.resolve(
    new SqliteEventStore(openDatabase(join(temporaryDirectory('stamp-es-'), 'stamp.db'))),
  ),
);

describe('SqliteEventStore read-ahead', () => {
  /**
   * 1,000 events in 10 appends: two categories; every third one sealed, under subject
   * `s<n % 150>` (event 102's subject has events 252 and 402 too).
   */
  async function seeded(): Promise<{ db: DatabaseSync; store: SqliteEventStore }> {
    const db = openDatabase(join(temporaryDirectory('stamp-es-'), 'stamp.db'));
    const store = new SqliteEventStore(db);
    for (let append = 0; append < 10; append += 1) {
      await store.append(
        Array.from({ length: 100 }, (_, index) => {
          const n = append * 100 + index;
          return {
            streamId: `${n % 2 === 0 ? 'contact' : 'order'}-${n}`,
            expectedRevision: 'no_stream' as const,
            events: [
              {
                type: 'Created',
                data: { n, email: `user${n}@example.com` },
                metadata: n % 3 === 0 ? { subjectId: `s${n % 150}` } : { projectId: 'p1' },
              },
            ],
          };
        }),
      );
    }
    return { db, store };
  }

  async function readThrough(
    store: SqliteEventStore,
    categories?: string[],
  ): Promise<RecordedEvent[]> {
    const events: RecordedEvent[] = [];
    for (;;) {
      const after = events[events.length - 1]?.position ?? 0;
      const batch = await store.readAll({
        after,
        limit: 64,
        ...(categories ? { categories } : {}),
      });
      events.push(...batch);
      if (batch.length < 64) return events;
    }
  }

  /** Waits until the thread answered every batch asked of it. */
  async function answered(store: SqliteEventStore): Promise<void> {
    while ((store.readAhead?.awaiting ?? 0) > 0) await setTimeout(5);
  }

  it('answers a reader behind the head from batches read on a thread, as its own reads would', async () => {
    const { db, store } = await seeded();
    const direct = new SqliteEventStore(db, { readAhead: false });
    try {
      expect(direct.readAhead).toBeUndefined();
      expect(new SqliteEventStore(openDatabase(':memory:')).readAhead).toBeUndefined();
      const expected = await readThrough(direct);
      expect(expected).toHaveLength(1000);
      expect(expected[3]?.data).toEqual({ n: 3, email: 'user3@example.com' });
      expect(await readThrough(store)).toEqual(expected);
      expect(await readThrough(store, ['order'])).toEqual(await readThrough(direct, ['order']));
      // Every read but the first (nothing asked for yet) and the last (not full): 14 of the
      // first pass's 16, 6 of the second's 8.
      expect(store.readAhead?.taken).toBe(20);
    } finally {
      await direct.close();
      await store.close();
      db.close();
    }
  });

  it('drops a batch read ahead when an erasure or a stream deletion came after it was asked for', async () => {
    const { db, store } = await seeded();
    try {
      const first = await store.readAll({ after: 0, limit: 100 });
      await answered(store);
      // Events 100-199 were read ahead; 102 is sealed under s102, 101 is in stream order-101.
      await store.eraseSubject('s102');
      await store.deleteStream('order-101');
      const second = await store.readAll({ after: first[99]?.position ?? 0, limit: 100 });
      expect(store.readAhead?.taken).toBe(0);
      expect(second.find((event) => event.streamId === 'contact-102')).toMatchObject({
        data: {},
        erased: true,
      });
      expect(second.some((event) => event.streamId === 'order-101')).toBe(false);
      // Read on the store's connection: 100 events from 100, 101 skipped. The next batch was
      // asked for after both changes, and is taken.
      expect(second.map((event) => (event.data as { n?: number }).n)).toContain(200);
      await answered(store);
      const third = await store.readAll({ after: second[99]?.position ?? 0, limit: 100 });
      expect(store.readAhead?.taken).toBe(1);
      expect(third[0]?.data).toEqual({ n: 201, email: 'user201@example.com' });
      // The thread had opened s102's event 102 before the erasure; it did not keep the key.
      expect(third.find((event) => event.streamId === 'contact-252')).toMatchObject({
        data: {},
        erased: true,
      });
    } finally {
      await store.close();
      db.close();
    }
  });
});

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
