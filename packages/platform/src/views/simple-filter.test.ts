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
const filters = fc.dictionary(fc.constantFrom('a', 'b', 'n', 'a.c', 'missing'), condition, {
  maxKeys: 3,
});

describe('compileFilter', () => {
  it('answers exactly as mingo (MongoDB semantics) on scalar filters', () => {
    fc.assert(
      fc.property(filters, documents, (filter, document) => {
        expect(compileFilter(filter)(document)).toBe(new Query(filter, {}).test(document));
      }),
      { numRuns: 3000 },
    );
  });

  it('falls back to mingo for other operators', () => {
    const test = compileFilter({ a: { $in: [1, 2] }, $or: [{ b: 'x' }, { b: 'y' }] });
    expect(test({ a: 2, b: 'y' })).toBe(true);
    expect(test({ a: 3, b: 'y' })).toBe(false);
  });
});
