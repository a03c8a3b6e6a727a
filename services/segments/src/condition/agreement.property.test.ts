/**
 * Property tests: for random conditions and random audience documents, the direct evaluation
 * agrees with the compiled filter run (a) by mingo (MongoDB's semantics, the reference of the
 * view stores) and (b) by the embedded SQLite view store on disk, which translates it to SQL
 * exactly unless it tests membership of a static or tracked segment (the `segments` array) or a
 * `contains` of non-ASCII text. And the next boundary is never later than a change of result.
 */
import { join } from 'node:path';

import { openDatabase, SqliteViewStore, type ViewDocument } from '@stamp/platform';
import { DocumentShape } from '@stamp/platform/views/document-shape.ts';
import {
  fieldExpression,
  translateFilter,
  typeExpression,
} from '@stamp/platform/views/sql-filter.ts';
import { temporaryDirectory } from '@stamp/testkit/temporary.ts';
import fc from 'fast-check';
import { Query } from 'mingo';
import type { AnyObject } from 'mingo/types';

import { type AudienceDocument, encodePathKey } from './audience.ts';
import { nextBoundary } from './boundary.ts';
import { compileCondition } from './compile.ts';
import type {
  Condition,
  ConditionGroup,
  EmailActivity,
  Filter,
  SegmentReference,
  TimeUnit,
} from './condition.ts';
import { evaluateCondition } from './evaluate.ts';
import { parseCondition } from './parse.ts';
import { forEachFilter } from './references.ts';
import { NOW, resolverOf } from './testing.ts';

const MINUTE = 60_000;
const iso = (ms: number): string => new Date(ms).toISOString();

// Durations, and timestamps on, just before and just after their cutoffs (or anywhere near).
const duration = fc.oneof(
  fc.record({ value: fc.constantFrom(1, 2, 3, 5, 30, 60), unit: fc.constant<TimeUnit>('minutes') }),
  fc.record({ value: fc.constantFrom(1, 2, 3), unit: fc.constant<TimeUnit>('hours') }),
  fc.record({ value: fc.constantFrom(1, 2, 3, 5), unit: fc.constant<TimeUnit>('days') }),
);
const timestamp = fc.oneof(
  fc
    .tuple(
      fc.constantFrom(0, 1, 2, 3, 5, 30, 60, 120, 180, 1440, 2880, 4320, 7200, -60),
      fc.constantFrom(-1, 0, 1),
    )
    .map(([minutes, delta]) => iso(NOW.getTime() - minutes * MINUTE + delta)),
  fc.integer({ min: -6 * 1440 * MINUTE, max: 1440 * MINUTE }).map((ms) => iso(NOW.getTime() + ms)),
);

const DATA_KEYS = ['plan', 'seats', 'a.b', '$x', '50%', 'say"hi', 'back\\slash', 'renewal'];
const EVENTS = ['signup', 'segment.vip.entry', 'a$b', '50%'];
const ACTIVITIES: EmailActivity[] = ['sent', 'open', 'click'];
const EMAILS = ['ann.smith@example.org', 'bob@smith.io', 'carol+news@x.org', 'zoë@exämple.org'];
const TEXTS = [
  'pro',
  'Pro',
  'PRO plan',
  '30',
  '42',
  '42.0',
  '-1',
  '(n/a)',
  'true',
  'false',
  'zürich',
  'ZÜRICH',
];
const DATE_TEXTS = ['2025-06-14', '2025-06-15', '2025-06-20', '2025-06-15T11:00:00Z', 'a.b*c'];

const dataValue = fc.oneof(
  fc.integer({ min: -3, max: 45 }),
  fc.constantFrom(0.5, 30, 42),
  fc.constantFrom(...TEXTS, ...DATE_TEXTS),
  timestamp,
  fc.boolean(),
);

const audienceDocument = (projectId: fc.Arbitrary<string>): fc.Arbitrary<AudienceDocument> =>
  fc.record({
    _id: fc.stringMatching(/^[0-9a-f]{3}$/),
    projectId,
    email: fc.constantFrom(...EMAILS),
    subscribed: fc.boolean(),
    createdAt: timestamp,
    updatedAt: timestamp,
    data: fc
      .dictionary(fc.constantFrom(...DATA_KEYS), dataValue, { maxKeys: 4 })
      .map((data) =>
        Object.fromEntries(Object.entries(data).map(([key, value]) => [encodePathKey(key), value])),
      ),
    events: fc
      .dictionary(
        fc.constantFrom(...EVENTS),
        fc
          .tuple(timestamp, timestamp, fc.integer({ min: 1, max: 5 }))
          .map(([a, b, count]) => ({ first: a < b ? a : b, last: a < b ? b : a, count })),
        { maxKeys: 2 },
      )
      .map((events) =>
        Object.fromEntries(
          Object.entries(events).map(([name, summary]) => [encodePathKey(name), summary]),
        ),
      ),
    emails: fc.dictionary(
      fc.constantFrom(...ACTIVITIES),
      timestamp.map((last) => ({ last })),
      { maxKeys: 2 },
    ),
    segments: fc.subarray(['s1', 's2', 'other']),
  });

const documents = fc.uniqueArray(audienceDocument(fc.constantFrom('p1', 'p1', 'p1', 'p2')), {
  selector: (document) => document._id,
  minLength: 1,
  maxLength: 16,
});

const withDuration = (
  field: fc.Arbitrary<string>,
  operators: readonly Filter['operator'][],
): fc.Arbitrary<Filter> =>
  fc
    .tuple(field, fc.constantFrom(...operators), duration)
    .map(([name, operator, { value, unit }]) => ({ field: name, operator, value, unit }));

const simple = (
  field: fc.Arbitrary<string>,
  operators: readonly Filter['operator'][],
  value?: fc.Arbitrary<string | number | boolean>,
): fc.Arbitrary<Filter> =>
  value === undefined
    ? fc.tuple(field, fc.constantFrom(...operators)).map(([name, operator]) => ({
        field: name,
        operator,
      }))
    : fc
        .tuple(field, fc.constantFrom(...operators), value)
        .map(([name, operator, given]) => ({ field: name, operator, value: given }));

const dataField = fc.constantFrom(...DATA_KEYS).map((key) => `data.${key}`);
const dateField = fc.constantFrom('createdAt', 'updatedAt');
const eventField = fc.oneof(
  fc.constantFrom(...EVENTS).map((name) => `event.${name}`),
  fc.constantFrom(...ACTIVITIES, 'bounce').map((activity) => `email.${activity}`),
);
const dateValue = fc.oneof(
  fc.constantFrom('2025-06-14', '2025-06-15', '2025-06-10'),
  timestamp,
  timestamp.map((text) => text.replace(/\.\d{3}Z$/, '+02:00')),
);

const filter = (segmentIds: readonly string[]): fc.Arbitrary<Filter> =>
  fc.oneof(
    simple(
      fc.constant('email'),
      ['equals', 'notEquals', 'contains', 'notContains'],
      fc.constantFrom(...EMAILS, 'Ann.Smith@Example.ORG', 'smith', 'SMITH', '.org', 'x.o', 'ZOË'),
    ),
    simple(fc.constant('subscribed'), ['equals', 'notEquals'], fc.boolean()),
    simple(
      dateField,
      ['equals', 'notEquals', 'greaterThan', 'greaterThanOrEqual', 'lessThan', 'lessThanOrEqual'],
      dateValue,
    ),
    withDuration(dateField, ['within', 'olderThan']),
    simple(
      dataField,
      ['equals', 'notEquals'],
      fc.oneof(fc.constantFrom(...TEXTS, 30, 42, 0.5, -1), fc.boolean()),
    ),
    simple(dataField, ['contains', 'notContains'], fc.constantFrom('pro', 'PR', '2', 'ÜR', '.b*')),
    simple(
      dataField,
      ['greaterThan', 'greaterThanOrEqual', 'lessThan', 'lessThanOrEqual'],
      fc.oneof(
        fc.integer({ min: -3, max: 45 }),
        fc.constantFrom('30', 'pro', '2025-06-15', 'Z'),
        timestamp,
      ),
    ),
    simple(dataField, ['exists', 'notExists']),
    withDuration(dataField, ['within', 'olderThan']),
    simple(eventField, ['triggered', 'notTriggered']),
    withDuration(eventField, ['triggeredWithin', 'triggeredOlderThan', 'notTriggeredWithin']),
    ...(segmentIds.length === 0
      ? []
      : [
          simple(
            fc.constantFrom(...segmentIds).map((id) => `segment.${id}`),
            ['memberOfSegment', 'notMemberOfSegment'],
          ),
        ]),
  );

/** Conditions up to `depth` levels deep whose segment filters name `segmentIds`. */
function condition(depth: number, segmentIds: readonly string[]): fc.Arbitrary<Condition> {
  const nested =
    depth > 1
      ? fc.option(condition(depth - 1, segmentIds), { nil: undefined, freq: 3 })
      : fc.constant(undefined);
  const group: fc.Arbitrary<ConditionGroup> = fc
    .tuple(fc.array(filter(segmentIds), { maxLength: 2 }), nested)
    .map(([filters, conditions]) => {
      if (conditions !== undefined) return { filters, conditions };
      return {
        filters:
          filters.length > 0 ? filters : [{ field: 'subscribed', operator: 'equals', value: true }],
      };
    });
  return fc.record({
    logic: fc.constantFrom<Condition['logic']>('AND', 'OR', 'OR'),
    groups: fc.array(group, { minLength: 1, maxLength: 3 }),
  });
}

/** s1 static, s2 tracked, s3 and s4 untracked (s4 may reference s3). */
const segments: fc.Arbitrary<Record<string, SegmentReference>> = fc
  .tuple(condition(2, ['s1']), condition(2, ['s1', 's2']), condition(2, ['s1', 's2', 's3']))
  .map(([s2, s3, s4]) => ({
    s1: { type: 'STATIC', trackMembership: false },
    s2: { type: 'DYNAMIC', trackMembership: true, condition: s2 },
    s3: { type: 'DYNAMIC', trackMembership: false, condition: s3 },
    s4: { type: 'DYNAMIC', trackMembership: false, condition: s4 },
  }));

const tested = condition(3, ['s1', 's2', 's3', 's4']);

/** Whether the embedded store must test rows itself: array membership, non-ASCII contains. */
function needsRowTest(
  condition: Condition,
  references: Record<string, SegmentReference>,
  seen = new Set<string>(),
): boolean {
  let needed = false;
  forEachFilter(condition, '', (item) => {
    if (item.operator === 'contains' || item.operator === 'notContains') {
      if (!/^[\x20-\x7e]*$/.test(String(item.value))) needed = true;
    }
    if (!item.field.startsWith('segment.')) return;
    const id = item.field.slice('segment.'.length);
    const reference = references[id];
    if (reference?.type === 'DYNAMIC' && !reference.trackMembership) {
      if (reference.condition !== undefined && !seen.has(id)) {
        seen.add(id);
        if (needsRowTest(reference.condition, references, seen)) needed = true;
      }
    } else {
      needed = true;
    }
  });
  return needed;
}

/** A plain audience document with `_id`. */
const audienceDocumentOf = (_id: string): AudienceDocument => ({
  _id,
  projectId: 'p1',
  email: 'a@b.c',
  subscribed: true,
  createdAt: NOW.toISOString(),
  updatedAt: NOW.toISOString(),
  data: {},
  events: {},
  emails: {},
  segments: [],
});

const byId = (a: ViewDocument, b: ViewDocument): number => (a._id < b._id ? -1 : 1);

describe('compiled conditions agree with the direct evaluation', () => {
  let views: SqliteViewStore;
  let db: ReturnType<typeof openDatabase>;
  beforeAll(() => {
    db = openDatabase(join(temporaryDirectory('stamp-segments-'), 'views.db'));
    views = new SqliteViewStore(db);
  });
  afterAll(async () => {
    await views.close();
    db.close();
  });

  it('in mingo and in the embedded SQLite view store', async () => {
    let run = 0;
    let rowTested = 0;
    await fc.assert(
      fc.asyncProperty(
        tested,
        fc.array(filter(['s1', 's2', 's3', 's4']), { minLength: 1, maxLength: 6 }),
        segments,
        documents,
        fc.subarray(['projectId', 'subscribed', 'createdAt', 'data.plan', 'email']),
        async (complex, singles, references, docs, indexed) => {
          run += 1;
          const name = `audience${run}`;
          const collection = views.collection<AudienceDocument>(name);
          for (const path of indexed) await collection.createIndex({ [path]: 1 });
          for (const doc of docs) await collection.insertOne(structuredClone(doc));
          const shape = new DocumentShape();
          for (const doc of docs) shape.widen(doc);
          const context = { now: NOW, resolveSegment: resolverOf(references) };
          const conditions: Condition[] = [
            complex,
            ...singles.map((item): Condition => ({ logic: 'AND', groups: [{ filters: [item] }] })),
          ];
          for (const condition of conditions) {
            expect(parseCondition(condition)).toEqual(condition);
            const compiled = compileCondition(condition, context);
            const scoped = { $and: [{ projectId: 'p1' }, compiled] };
            const expected = docs
              .filter((doc) => doc.projectId === 'p1' && evaluateCondition(condition, doc, context))
              .map((doc) => doc._id)
              .sort();

            // (a) mingo.
            const byMingo = new Query(scoped, {})
              .find<ViewDocument>(docs as unknown as AnyObject[])
              .all()
              .map((doc) => doc._id)
              .sort();
            expect(byMingo).toEqual(expected);

            // (b) the embedded store, and SQL alone unless a row test is needed.
            const found = (await collection.find(scoped)).sort(byId).map((doc) => doc._id);
            expect(found).toEqual(expected);
            expect(await collection.countDocuments(scoped)).toBe(expected.length);
            const sql = translateFilter(scoped, {
              shape,
              column: (path) => fieldExpression(path),
              columnType: (path) => typeExpression(path),
              substringQuery: () => undefined,
            });
            if (needsRowTest(condition, references)) rowTested += 1;
            else expect(sql.exact).toBe(true);
          }
          await views.drop(name);
        },
      ),
      { numRuns: 400 },
    );
    // Both kinds of condition were drawn.
    expect(rowTested).toBeGreaterThan(0);
    expect(rowTested).toBeLessThan(run);
  });

  it('orders text by code points, as MongoDB and SQLite do (mingo compares UTF-16 units)', async () => {
    const collection = views.collection<AudienceDocument>('code-points');
    const docs = [
      { _id: 'astral', data: { k: '\u{1F600}' } },
      { _id: 'bmp', data: { k: '\uFFFD' } },
    ].map((doc) => ({ ...audienceDocumentOf(doc._id), data: doc.data }));
    for (const doc of docs) await collection.insertOne(doc);
    const condition: Condition = {
      logic: 'AND',
      groups: [{ filters: [{ field: 'data.k', operator: 'greaterThan', value: '\uFFFD' }] }],
    };
    const context = { now: NOW, resolveSegment: resolverOf({}) };
    const found = await collection.find(compileCondition(condition, context));
    expect(found.map((doc) => doc._id)).toEqual(['astral']);
    expect(docs.filter((doc) => evaluateCondition(condition, doc, context))).toEqual(found);
    await views.drop('code-points');
  });

  it('and nothing changes by time alone before the next boundary', () => {
    fc.assert(
      fc.property(
        tested,
        segments,
        audienceDocument(fc.constant('p1')),
        fc.integer({ min: 1, max: 30 * 1440 * MINUTE }),
        (condition, references, doc, later) => {
          const resolveSegment = resolverOf(references);
          const at = (instant: number): boolean =>
            evaluateCondition(condition, doc, { now: new Date(instant), resolveSegment });
          const now = NOW.getTime();
          const result = at(now);
          const boundary = nextBoundary(condition, doc, NOW, resolveSegment)?.getTime();
          if (boundary === undefined) {
            expect(at(now + later)).toBe(result);
            return;
          }
          expect(boundary).toBeGreaterThan(now);
          expect(at(boundary - 1)).toBe(result);
          if (now + later < boundary) expect(at(now + later)).toBe(result);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('and for a single time filter the boundary is exactly the change', () => {
    const single = fc.oneof(
      withDuration(dateField, ['within', 'olderThan']),
      withDuration(dataField, ['within', 'olderThan']),
      withDuration(eventField, ['triggeredWithin', 'triggeredOlderThan', 'notTriggeredWithin']),
    );
    fc.assert(
      fc.property(single, audienceDocument(fc.constant('p1')), (item, doc) => {
        const condition: Condition = { logic: 'AND', groups: [{ filters: [item] }] };
        const resolveSegment = resolverOf({});
        const at = (instant: number): boolean =>
          evaluateCondition(condition, doc, { now: new Date(instant), resolveSegment });
        const boundary = nextBoundary(condition, doc, NOW)?.getTime();
        if (boundary !== undefined) expect(at(boundary)).toBe(!at(NOW.getTime()));
      }),
      { numRuns: 500 },
    );
  });
});
