/**
 * The embedded view store against mingo (the reference of MongoDB's semantics): random
 * documents (numbers beside booleans, nested objects, arrays, nulls, missing fields), random
 * filters (`$and`, `$or`, `$nor`, `$not`, comparisons, `$in`, `$nin`, `$exists`, literal and
 * other `$regex`), sorts, pages, counts, distinct values and writes selected by filter, with and
 * without indexes and a trigram index, while changes are still held in memory.
 */
import fc from 'fast-check';
import { Query } from 'mingo';
import { update as applyUpdate } from 'mingo/updater';
import type { AnyObject } from 'mingo/types';

import { openDatabase } from '../sqlite/database.ts';
import { SqliteViewStore } from './sqlite-view-store.ts';
import type { Filter, Sort, ViewDocument } from './view-store.ts';

const scalar = fc.oneof(
  fc.integer({ min: -2, max: 2 }),
  fc.constantFrom(0.5, 'a', 'b', 'ab', 'Ba', '', '{x', 'a.b'),
  fc.constant(null),
  fc.boolean(),
);
const value = fc.oneof(
  { weight: 6, arbitrary: scalar },
  { weight: 1, arbitrary: fc.array(scalar, { maxLength: 3 }) },
  { weight: 1, arbitrary: fc.record({ x: scalar }) },
);
const email = fc.constantFrom(
  'ann@example.org',
  'Bob.Smith@Example.com',
  'bob@smith.io',
  'carol+news@x.org',
  'dave@EXAMPLE.org',
  'a.b@c.de',
);
const documents = fc.uniqueArray(
  fc.record(
    {
      _id: fc.stringMatching(/^[0-9a-f]{3}$/),
      p: fc.constantFrom('x', 'y'),
      a: value,
      b: scalar,
      o: fc.oneof(fc.record({ x: scalar, y: scalar }, { requiredKeys: [] }), scalar),
      t: fc.array(scalar, { maxLength: 3 }),
      s: email,
    },
    { requiredKeys: ['_id', 'p'] },
  ),
  { selector: (document) => document._id, maxLength: 30 },
);

const path = fc.constantFrom('a', 'b', 'o.x', 'o.y', 't', 's', '_id', 'missing');
const operand = fc.oneof(scalar, fc.constantFrom('0a1', 'f'));
const condition: fc.Arbitrary<unknown> = fc.oneof(
  operand,
  fc.record({ $ne: operand }),
  fc.record({ $gt: operand }),
  fc.record({ $lte: operand }),
  fc.record({ $gte: operand, $lt: operand }),
  fc.record({ $in: fc.array(operand, { maxLength: 3 }) }),
  fc.record({ $nin: fc.array(operand, { maxLength: 3 }) }),
  fc.record({ $exists: fc.boolean() }),
  fc.record({
    $regex: fc.constantFrom('smith', 'SMITH', 'a', 'exa', '\\.org', '^b', 'o$', 'b.b', 'a\\.b', ''),
    $options: fc.constantFrom('i', ''),
  }),
  fc.record({ $not: fc.record({ $gt: operand }) }),
);
const leaf = fc.dictionary(path, condition, { minKeys: 1, maxKeys: 2 });
const filter: fc.Arbitrary<Filter> = fc.oneof(
  { weight: 4, arbitrary: leaf },
  { weight: 1, arbitrary: fc.record({ $or: fc.array(leaf, { minLength: 1, maxLength: 3 }) }) },
  { weight: 1, arbitrary: fc.record({ $nor: fc.array(leaf, { minLength: 1, maxLength: 2 }) }) },
  {
    weight: 1,
    arbitrary: fc.record({
      p: fc.constantFrom('x', 'y'),
      $and: fc.array(leaf, { minLength: 1, maxLength: 2 }),
    }),
  },
);
const sortKey = fc.constantFrom('a', 'b', 'o.x', 's', 'missing');
const sort = fc
  .uniqueArray(fc.tuple(sortKey, fc.constantFrom<1 | -1>(1, -1)), {
    selector: ([key]) => key,
    maxLength: 2,
  })
  .chain((keys) =>
    fc.constantFrom<1 | -1>(1, -1).map((direction) => {
      const order: Sort = {};
      for (const [key, way] of keys) order[key] = way;
      order._id = direction;
      return order;
    }),
  );
const indexes = fc.subarray(['p', 'a', 's', 'o.x', 'substring'] as const);
/** A substring index of `s` alone, or one keeping `p` beside it. */
type Substring = 'substring' | 'substring-p';

/** A store filled with `docs`, some writes left held in memory. */
async function filled(
  docs: ViewDocument[],
  indexed: readonly string[],
  walkRows?: number,
): Promise<{ views: SqliteViewStore; stored: ViewDocument[] }> {
  const views = new SqliteViewStore(openDatabase(':memory:'), { flushMs: 60_000, walkRows });
  const collection = views.collection('c');
  for (const field of indexed) {
    if (field === 'substring') await collection.createIndex({ s: 1 }, { substring: true });
    else if (field === 'substring-p') {
      await collection.createIndex({ p: 1, s: 1 }, { substring: true });
    } else await collection.createIndex({ [field]: 1 });
  }
  for (const [index, document] of docs.entries()) {
    await collection.insertOne(document);
    // Half the documents reach the disk before the queries; the rest are held.
    if (index === Math.floor(docs.length / 2)) await views.flush();
  }
  return { views, stored: docs.map((document) => structuredClone(document)) };
}

const byId = (a: ViewDocument, b: ViewDocument): number => (a._id < b._id ? -1 : 1);

describe('SqliteViewStore gives MongoDB answers (mingo as the reference)', () => {
  it('find with sort, skip and limit; countDocuments; distinct', async () => {
    await fc.assert(
      fc.asyncProperty(
        documents,
        indexes,
        filter,
        sort,
        fc.integer({ min: 0, max: 3 }),
        fc.integer({ min: 1, max: 8 }),
        async (docs, indexed, where, order, skip, limit) => {
          const { views, stored } = await filled(docs, indexed);
          const collection = views.collection('c');
          const matching = new Query(where, {}).find<ViewDocument>(stored).all();
          const expected = new Query(where, {})
            .find<ViewDocument>(stored)
            .sort(order)
            .skip(skip)
            .limit(limit)
            .all();
          expect(await collection.find(where, { sort: order, skip, limit })).toEqual(expected);
          expect((await collection.find(where)).sort(byId)).toEqual([...matching].sort(byId));
          expect(await collection.countDocuments(where)).toBe(matching.length);
          const one = await collection.findOne(where);
          if (one === null) expect(matching).toEqual([]);
          else expect(matching).toContainEqual(one);
          const distinct = new Map<string, unknown>();
          for (const document of matching) {
            const held = document.a;
            for (const item of Array.isArray(held) ? held : [held]) {
              if (item !== undefined) distinct.set(JSON.stringify(item), item);
            }
          }
          const values = await collection.distinct('a', where);
          expect(new Set(values.map((item) => JSON.stringify(item)))).toEqual(
            new Set(distinct.keys()),
          );
          await views.close();
        },
      ),
      { numRuns: 400 },
    );
  });

  it('updateMany, deleteMany and cached counts', async () => {
    await fc.assert(
      fc.asyncProperty(
        documents,
        indexes,
        filter,
        filter,
        filter,
        async (docs, indexed, counted, changed, removed) => {
          const { views, stored } = await filled(docs, indexed);
          const collection = views.collection('c');
          // A count cached before the writes must follow them.
          await collection.countDocuments(counted);
          const update = { $set: { b: 'u', 'o.x': 7 }, $inc: { n: 1 } };
          const result = await collection.updateMany(changed, update);
          let reference = stored;
          const toChange = new Query(changed, {}).find<ViewDocument>(reference).all();
          for (const document of toChange) {
            applyUpdate(document as AnyObject, update as AnyObject, [], undefined, {
              cloneMode: 'deep',
            });
          }
          expect(result.matchedCount).toBe(toChange.length);
          const gone = new Set(
            new Query(removed, {})
              .find<ViewDocument>(reference)
              .all()
              .map((document) => document._id),
          );
          expect((await collection.deleteMany(removed)).deletedCount).toBe(gone.size);
          reference = reference.filter((document) => !gone.has(document._id));
          expect((await collection.find({})).sort(byId)).toEqual([...reference].sort(byId));
          expect(await collection.countDocuments(counted)).toBe(
            new Query(counted, {}).find(reference).all().length,
          );
          await views.close();
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('SqliteViewStore substring searches (mingo as the reference)', () => {
  const literal = fc.constantFrom(
    'smith',
    'SMITH',
    'exa',
    '.org',
    'b.s',
    'ann@',
    'zzz',
    'a.b@',
    'x.o',
  );
  /** Searches of `s`, mostly with `p` alone beside them (which the index answers alone). */
  const search: fc.Arbitrary<Filter> = fc
    .tuple(
      fc.option(fc.constantFrom('x', 'y'), { nil: undefined }),
      fc.record({
        $regex: literal.map((text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')),
        $options: fc.constantFrom('i', ''),
      }),
      fc.oneof(
        { weight: 3, arbitrary: fc.constant(undefined) },
        { weight: 1, arbitrary: condition },
      ),
    )
    .map(([p, regex, a]) => ({
      ...(p === undefined ? {} : { p }),
      s: regex,
      ...(a === undefined ? {} : { a }),
    }));

  it('pages in _id order and counts, the page read and counted in one pass', async () => {
    await fc.assert(
      fc.asyncProperty(
        documents,
        search,
        fc.constantFrom<1 | -1>(1, -1),
        fc.integer({ min: 0, max: 3 }),
        fc.integer({ min: 1, max: 5 }),
        fc.constantFrom<Substring>('substring', 'substring-p'),
        fc.constantFrom(1, 2000),
        async (docs, where, direction, skip, limit, substring, walkRows) => {
          const { views, stored } = await filled(docs, ['p', substring], walkRows);
          const collection = views.collection('c');
          const expected = new Query(where, {})
            .find<ViewDocument>(stored)
            .sort({ _id: direction })
            .skip(skip)
            .limit(limit)
            .all();
          expect(await collection.find(where, { sort: { _id: direction }, skip, limit })).toEqual(
            expected,
          );
          expect(await collection.countDocuments(where)).toBe(
            new Query(where, {}).find(stored).all().length,
          );
          // Once counted (and on a later page), a page may walk the index's `_id` order.
          expect(await collection.find(where, { sort: { _id: direction }, skip, limit })).toEqual(
            expected,
          );
          const last = expected[expected.length - 1];
          if (last !== undefined) {
            const after = { ...where, _id: { [direction === 1 ? '$gt' : '$lt']: last._id } };
            expect(await collection.find(after, { sort: { _id: direction }, limit })).toEqual(
              new Query(after, {})
                .find<ViewDocument>(stored)
                .sort({ _id: direction })
                .limit(limit)
                .all(),
            );
          }
          await views.close();
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('SqliteViewStore substring index', () => {
  it('finds literal substrings case-insensitively through the trigram index, also after changes', async () => {
    const views = new SqliteViewStore(openDatabase(':memory:'));
    const contacts = views.collection('contacts');
    await contacts.insertOne({ _id: '1', projectId: 'p', email: 'ann.smith@example.org' });
    await contacts.createIndex({ email: 1 }, { substring: true });
    await contacts.insertOne({ _id: '2', projectId: 'p', email: 'bob@smithy.io' });
    await contacts.insertOne({ _id: '3', projectId: 'q', email: 'smith@example.org' });
    const search = (text: string, projectId = 'p'): Promise<ViewDocument[]> =>
      contacts.find(
        {
          projectId,
          email: { $regex: text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), $options: 'i' },
        },
        { sort: { _id: -1 } },
      );
    expect((await search('SMITH')).map((document) => document._id)).toEqual(['2', '1']);
    expect((await search('h@e')).map((document) => document._id)).toEqual(['1']);
    expect((await search('h.i')).map((document) => document._id)).toEqual([]);
    await contacts.updateOne({ _id: '2' }, { $set: { email: 'bob@jones.io' } });
    expect((await search('smith')).map((document) => document._id)).toEqual(['1']);
    await contacts.deleteOne({ _id: '1' });
    expect(await search('smith')).toEqual([]);
    expect(
      await contacts.countDocuments({ projectId: 'q', email: { $regex: 'smith', $options: 'i' } }),
    ).toBe(1);
    await views.drop('contacts');
    expect(await search('smith', 'q')).toEqual([]);
    await views.close();
  });
});
