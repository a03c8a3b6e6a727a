import fc from 'fast-check';
import { update as mingoUpdate } from 'mingo/updater';
import type { AnyObject } from 'mingo/types';

import { applySimpleUpdate } from './simple-update.ts';
import type { Update } from './view-store.ts';

describe('applySimpleUpdate gives the answer of the general updater (mingo)', () => {
  const leaf = fc.oneof(fc.integer({ min: -5, max: 5 }), fc.constantFrom('a', 'b'), fc.boolean());
  const document = fc.record(
    {
      n: leaf,
      s: leaf,
      nested: fc.record({ x: leaf, y: fc.array(leaf, { maxLength: 2 }) }, { requiredKeys: [] }),
      list: fc.array(leaf, { maxLength: 2 }),
    },
    { requiredKeys: [] },
  );
  const path = fc.constantFrom(
    'n',
    's',
    'nested.x',
    'nested.z',
    'fresh.deep',
    'list',
    'nested.y.0',
  );
  const operation = fc.oneof(
    fc.record({ op: fc.constant('$set'), value: fc.oneof(leaf, fc.constant({ k: 1 })) }),
    fc.record({ op: fc.constant('$unset'), value: fc.constant('') }),
    fc.record({ op: fc.constant('$inc'), value: fc.integer({ min: -2, max: 2 }) }),
    fc.record({ op: fc.constantFrom('$max', '$min'), value: leaf }),
  );
  const update = fc
    .uniqueArray(fc.tuple(path, operation), {
      selector: ([field]) => field,
      minLength: 1,
      maxLength: 3,
    })
    .map((entries) => {
      const built: Update = {};
      for (const [field, { op, value }] of entries) {
        built[op] = { ...built[op], [field]: value };
      }
      return built;
    });

  it('changes documents and reports changes as mingo does', () => {
    fc.assert(
      fc.property(document, update, (given, modifier) => {
        const direct = structuredClone(given) as Record<string, unknown>;
        const reference = structuredClone(given) as Record<string, unknown>;
        let referenceChanged: boolean;
        try {
          referenceChanged =
            mingoUpdate(reference, modifier as AnyObject, [], undefined, { cloneMode: 'deep' })
              .length > 0;
        } catch {
          // mingo refuses it: the direct path must leave it to mingo.
          expect(applySimpleUpdate(direct, modifier)).toBeUndefined();
          return;
        }
        const changed = applySimpleUpdate(direct, modifier);
        if (changed === undefined) {
          expect(direct).toEqual(given);
          return;
        }
        expect(direct).toEqual(reference);
        expect(changed).toBe(referenceChanged);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('applySimpleUpdate direct path', () => {
  it('handles the operators of projections without the general updater', () => {
    const document: Record<string, unknown> = { count: 1, types: { a: 2 } };
    expect(
      applySimpleUpdate(document, {
        $inc: { count: 2, 'types.b': 1 },
        $set: { 'meta.name': 'x' },
        $max: { lastSeenAt: '2026-01-01' },
      }),
    ).toBe(true);
    expect(document).toEqual({
      count: 3,
      types: { a: 2, b: 1 },
      meta: { name: 'x' },
      lastSeenAt: '2026-01-01',
    });
    expect(applySimpleUpdate(document, { $set: { count: 3 }, $min: { count2: 5 } })).toBe(true);
    expect(applySimpleUpdate(document, { $set: { count: 3 } })).toBe(false);
    expect(applySimpleUpdate(document, { $push: { list: 1 } })).toBeUndefined();
  });
});
