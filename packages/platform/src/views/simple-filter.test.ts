import fc from 'fast-check';
import { Query } from 'mingo';

import { compileFilter } from './simple-filter.ts';

const scalar = fc.oneof(
  fc.integer({ min: -3, max: 3 }),
  fc.constantFrom('a', 'b', 'c'),
  fc.boolean(),
);
const value = fc.oneof(
  scalar,
  fc.constant(null),
  fc.array(scalar, { maxLength: 2 }),
  fc.record({ c: scalar }),
);
const documents = fc.record(
  { _id: fc.string(), a: value, b: value, n: fc.option(scalar, { nil: undefined }) },
  { requiredKeys: ['_id'] },
);
const operator = fc.constantFrom('$eq', '$ne', '$lt', '$lte', '$gt', '$gte', '$exists');
const condition = fc.oneof(
  scalar,
  fc.constant(null),
  fc.dictionary(operator, scalar, { minKeys: 1, maxKeys: 2 }),
);
const path = fc.constantFrom('a', 'b', 'n', 'a.c', 'missing');
const negated = fc.oneof(
  condition,
  fc.record({ $not: fc.dictionary(operator, scalar, { minKeys: 1, maxKeys: 2 }) }),
);
const plain = fc.dictionary(path, negated, { maxKeys: 3 });
const filters = fc.oneof(
  plain,
  fc
    .tuple(plain, fc.constantFrom('$or', '$and'), fc.array(plain, { minLength: 1, maxLength: 3 }))
    .map(([fields, kind, members]) => ({ ...fields, [kind]: members })),
);

describe('compileFilter', () => {
  it('answers exactly as mingo (MongoDB semantics) on scalar filters, negated and grouped', () => {
    fc.assert(
      fc.property(filters, documents, (filter, document) => {
        expect(compileFilter(filter)(document)).toBe(new Query(filter, {}).test(document));
      }),
      { numRuns: 3000 },
    );
  });

  it('falls back to mingo for other operators', () => {
    const test = compileFilter({ a: { $in: [1, 2] }, $or: [{ b: 'x' }, { b: { $size: 1 } }] });
    expect(test({ a: 2, b: 'x' })).toBe(true);
    expect(test({ a: 2, b: 'y' })).toBe(false);
    expect(test({ a: 3, b: 'x' })).toBe(false);
    expect(test({ a: 1, b: ['q'] })).toBe(true);
  });
});
