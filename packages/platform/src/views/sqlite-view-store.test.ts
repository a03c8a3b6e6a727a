import { join } from 'node:path';

import { temporaryDirectory } from '@stamp/testkit/temporary.ts';
import fc from 'fast-check';
import { Query } from 'mingo';
import type { AnyObject } from 'mingo/types';

import { openDatabase } from '../sqlite/database.ts';
import { SqliteViewStore } from './sqlite-view-store.ts';
import { viewStoreContract } from './view-store.contract.ts';
import type { Filter, Sort, ViewDocument } from './view-store.ts';

viewStoreContract('embedded SQLite + mingo', () =>
  Promise.resolve(new SqliteViewStore(openDatabase(':memory:'))),
);

describe('SqliteViewStore on disk', () => {
  it('keeps documents across a reopen', async () => {
    const path = join(temporaryDirectory('stamp-views-'), 'stamp.db');
    const db = openDatabase(path);
    const views = new SqliteViewStore(db);
    await views.collection('c').insertOne({ _id: '1', a: 1 });
    await views.close();
    db.close();
    const again = openDatabase(path);
    try {
      const reopened = new SqliteViewStore(again);
      expect(await reopened.collection('c').findOne({ _id: '1' })).toEqual({ _id: '1', a: 1 });
      await reopened.close();
    } finally {
      again.close();
    }
  });
});

describe('SqliteViewStore query results kept between changes', () => {
  it('answers a repeated query from its result until the collection changes', async () => {
    const views = new SqliteViewStore(openDatabase(':memory:'));
    const domains = views.collection('domains');
    await domains.createIndex({ projectId: 1 });
    await domains.insertOne({ _id: 'd1', projectId: 'p1', domain: 'a.test', verified: false });
    const query = { projectId: 'p1', domain: 'a.test' };
    expect(await domains.findOne(query)).toMatchObject({ verified: false });
    // The caller owns what it was given: changing it changes no later answer.
    const mine = await domains.findOne(query);
    if (mine !== null) mine.verified = 'changed by the caller';
    expect(await domains.findOne(query)).toMatchObject({ verified: false });
    expect(await domains.find({ projectId: 'p1' })).toHaveLength(1);
    await domains.updateOne({ _id: 'd1' }, { $set: { verified: true } });
    expect(await domains.findOne(query)).toMatchObject({ verified: true });
    await domains.insertOne({ _id: 'd2', projectId: 'p1', domain: 'b.test', verified: true });
    expect(await domains.find({ projectId: 'p1' }, { sort: { _id: 1 } })).toHaveLength(2);
    await domains.deleteOne({ _id: 'd1' });
    expect(await domains.findOne(query)).toBeNull();
    expect(await domains.find({ projectId: 'p1' }, { sort: { _id: 1 } })).toHaveLength(1);
  });

  it('answers repeated look-ups by _id until the collection changes, found or not', async () => {
    const views = new SqliteViewStore(openDatabase(':memory:'));
    const keys = views.collection('keys');
    await keys.insertOne({ _id: 'k1', projectId: 'p1' });
    await views.flush();
    for (let round = 0; round < 3; round += 1) {
      expect(await keys.findOne({ _id: 'k1' })).toEqual({ _id: 'k1', projectId: 'p1' });
      expect(await keys.findOne({ _id: 'k2' })).toBeNull();
    }
    // The caller owns what it was given.
    const mine = await keys.findOne({ _id: 'k1' });
    if (mine !== null) mine.projectId = 'changed by the caller';
    expect(await keys.find({ _id: 'k1' })).toEqual([{ _id: 'k1', projectId: 'p1' }]);
    await keys.deleteOne({ _id: 'k1' });
    await keys.insertOne({ _id: 'k2', projectId: 'p2' });
    expect(await keys.findOne({ _id: 'k1' })).toBeNull();
    expect(await keys.findOne({ _id: 'k2' })).toEqual({ _id: 'k2', projectId: 'p2' });
    await views.flush();
    expect(await keys.findOne({ _id: 'k1' })).toBeNull();
    expect(await keys.findOne({ _id: 'k2', projectId: 'p1' })).toBeNull();
    expect(await keys.findOne({ _id: 'k2', projectId: 'p2' })).toEqual({
      _id: 'k2',
      projectId: 'p2',
    });
    await views.close();
  });

  it('answers the reads that follow a read by ids in the same turn with no write hidden', async () => {
    const views = new SqliteViewStore(openDatabase(':memory:'));
    const audience = views.collection('audience');
    await audience.insertOne({ _id: 'a', n: 1 });
    await audience.insertOne({ _id: 'b', n: 1 });
    await views.flush();
    expect(await audience.find({ _id: { $in: ['a', 'b', 'c'] } })).toHaveLength(2);
    // Each write replaces what the read by ids found, also once the write is on disk.
    await audience.updateOne({ _id: 'a' }, { $inc: { n: 1 } });
    await views.flush();
    expect(await audience.findOne({ _id: 'a' })).toEqual({ _id: 'a', n: 2 });
    await audience.updateOne({ _id: 'c' }, { $set: { n: 5 } }, { upsert: true });
    await views.flush();
    expect(await audience.findOne({ _id: 'c' })).toEqual({ _id: 'c', n: 5 });
    await expect(audience.insertOne({ _id: 'c', n: 6 })).rejects.toThrow(/duplicate/i);
    await audience.deleteOne({ _id: 'b' });
    await views.flush();
    expect(await audience.findOne({ _id: 'b' })).toBeNull();
    await audience.insertOne({ _id: 'b', n: 7 });
    await views.flush();
    expect(await audience.findOne({ _id: 'b' })).toEqual({ _id: 'b', n: 7 });
    await views.close();
  });

  it('sees the commits of another connection to the same file', async () => {
    const path = join(temporaryDirectory('stamp-views-'), 'stamp.db');
    const first = openDatabase(path);
    const second = openDatabase(path);
    try {
      const writer = new SqliteViewStore(first);
      const mine = writer.collection('settings');
      const theirs = new SqliteViewStore(second).collection('settings');
      await mine.insertOne({ _id: 's1', projectId: 'p1', tracking: 'ENABLED' });
      await writer.flush();
      expect(await theirs.findOne({ projectId: 'p1' })).toMatchObject({ tracking: 'ENABLED' });
      expect(await theirs.findOne({ projectId: 'p1' })).toMatchObject({ tracking: 'ENABLED' });
      await mine.updateOne({ _id: 's1' }, { $set: { tracking: 'DISABLED' } });
      await writer.flush();
      // Within one turn of the event loop the reads see what was committed before it began.
      expect(await theirs.findOne({ projectId: 'p1' })).toMatchObject({ tracking: 'ENABLED' });
      await new Promise((resolve) => setImmediate(resolve));
      expect(await theirs.findOne({ projectId: 'p1' })).toMatchObject({ tracking: 'DISABLED' });
      // Look-ups by _id too: a key revoked by another process is refused from the next turn on.
      for (let round = 0; round < 3; round += 1) {
        expect(await theirs.findOne({ _id: 's1' })).toMatchObject({ tracking: 'DISABLED' });
      }
      await mine.deleteOne({ _id: 's1' });
      await mine.insertOne({ _id: 's2', projectId: 'p2', tracking: 'ENABLED' });
      await writer.flush();
      await new Promise((resolve) => setImmediate(resolve));
      expect(await theirs.findOne({ _id: 's1' })).toBeNull();
      expect(await theirs.findOne({ _id: 's2' })).toMatchObject({ tracking: 'ENABLED' });
    } finally {
      first.close();
      second.close();
    }
  });
});

describe('SqliteViewStore fast paths give MongoDB answers (mingo as the reference)', () => {
  const value = fc.oneof(
    fc.integer({ min: -3, max: 3 }),
    fc.constantFrom('a', 'b', 'ab', 'Ba', ''),
    fc.constant(null),
    fc.boolean(),
    fc.constant(undefined),
  );
  const documents = fc.uniqueArray(
    fc.record({
      _id: fc.stringMatching(/^[0-9a-f]{4}$/),
      p: fc.constantFrom('x', 'y'),
      a: value,
      b: value,
    }),
    { selector: (document) => document._id, maxLength: 40 },
  );
  const condition = fc.oneof(
    value.filter((item) => item !== undefined),
    fc.record({ $gt: fc.integer({ min: -3, max: 3 }) }),
    fc.record({ $in: fc.array(fc.constantFrom(1, 'a', 'ab', true), { maxLength: 3 }) }),
    fc.record({ $regex: fc.constantFrom('a', '^b', 'a$'), $options: fc.constantFrom('i', '') }),
    fc.record({ $exists: fc.boolean() }),
  );
  const filter = fc.record({ p: fc.constantFrom('x', 'y'), a: condition }, { requiredKeys: ['p'] });
  const sort = fc.constantFrom<Sort>({ a: 1, _id: 1 }, { a: -1, _id: 1 }, { b: 1, a: -1, _id: -1 });

  it('find with sort and limit, and countDocuments', async () => {
    await fc.assert(
      fc.asyncProperty(
        documents,
        filter,
        sort,
        fc.integer({ min: 1, max: 10 }),
        async (docs, where, order, limit) => {
          const views = new SqliteViewStore(openDatabase(':memory:'));
          const collection = views.collection('c');
          await collection.createIndex({ p: 1 });
          for (const document of docs) {
            const stored = Object.fromEntries(
              Object.entries(document).filter(([, field]) => field !== undefined),
            ) as ViewDocument;
            await collection.insertOne(stored);
          }
          const stored = await collection.find({});
          const expected = new Query(where, {})
            .find<ViewDocument>(stored)
            .sort(order)
            .limit(limit)
            .all();
          expect(await collection.find(where, { sort: order, limit })).toEqual(expected);
          expect(await collection.countDocuments(where)).toBe(
            new Query(where as AnyObject, {}).find(stored).all().length,
          );
          await views.close();
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('SqliteViewStore pages in _id order through writes (mingo as the reference)', () => {
  // Few ids, so writes often replace and remove documents already paged through.
  const id = fc.stringMatching(/^[0-9a-f]$/);
  const step = fc.oneof(
    fc.record({ kind: fc.constant('put' as const), id, a: fc.integer({ min: 0, max: 3 }) }),
    fc.record({ kind: fc.constant('delete' as const), id }),
    fc.record({
      kind: fc.constant('page' as const),
      direction: fc.constantFrom<1 | -1>(1, -1),
      bound: fc.option(id, { nil: undefined }),
      a: fc.option(fc.integer({ min: 0, max: 3 }), { nil: undefined }),
      limit: fc.integer({ min: 1, max: 6 }),
    }),
  );

  it('answers every page and count as a full sort would', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 60 }), async (steps) => {
        const views = new SqliteViewStore(openDatabase(':memory:'));
        const collection = views.collection('c');
        await collection.createIndex({ p: 1 });
        for (const current of steps) {
          if (current.kind === 'put') {
            await collection.replaceOne(
              { _id: current.id },
              { _id: current.id, p: 'x', a: current.a },
              { upsert: true },
            );
          } else if (current.kind === 'delete') {
            await collection.deleteOne({ _id: current.id });
          } else {
            const filter: Filter = { p: 'x' };
            if (current.a !== undefined) filter.a = current.a;
            if (current.bound !== undefined) {
              filter._id =
                current.direction === 1 ? { $gt: current.bound } : { $lt: current.bound };
            }
            const all = await collection.find({});
            const expected = new Query(filter, {})
              .find<ViewDocument>(all)
              .sort({ _id: current.direction })
              .limit(current.limit)
              .all();
            const page = await collection.find(filter, {
              sort: { _id: current.direction },
              limit: current.limit,
            });
            expect(page).toEqual(expected);
            expect(await collection.countDocuments(filter)).toBe(
              new Query(filter, {}).find(all).all().length,
            );
          }
        }
        await views.close();
      }),
      { numRuns: 300 },
    );
  });
});

describe('SqliteViewStore upgrade', () => {
  it('moves the documents of the earlier single table into the collections, once', async () => {
    const db = openDatabase(':memory:');
    db.exec(`CREATE TABLE view_documents (
        collection TEXT NOT NULL, id TEXT NOT NULL, document TEXT NOT NULL,
        PRIMARY KEY (collection, id)) WITHOUT ROWID;
      INSERT INTO view_documents VALUES
        ('outbox', 'e1', '{"_id":"e1","projectId":"p","capturedAt":"2026-01-01"}'),
        ('idempotency', 'k1', '{"_id":"k1","expiresAt":"2026-01-02"}');`);
    const views = new SqliteViewStore(db);
    expect(await views.collection('outbox').find({ projectId: 'p' })).toEqual([
      { _id: 'e1', projectId: 'p', capturedAt: '2026-01-01' },
    ]);
    expect(await views.collection('idempotency').countDocuments({})).toBe(1);
    const old = db.prepare("SELECT name FROM sqlite_master WHERE name = 'view_documents'").all();
    expect(old).toEqual([]);
    await views.close();
    db.close();
  });
});
