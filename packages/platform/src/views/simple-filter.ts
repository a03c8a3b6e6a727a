import { Query } from 'mingo';
import type { AnyObject } from 'mingo/types';

import type { Filter } from './view-store.ts';

type Scalar = string | number | boolean;
type Test = (value: unknown) => boolean;

const isScalar = (value: unknown): value is Scalar =>
  typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';

/** Marks a path that crosses or ends on an array, where MongoDB's array rules apply. */
const ARRAY = Symbol('array');

function fieldValue(document: unknown, path: string): unknown {
  let current: unknown = document;
  for (const part of path.split('.')) {
    if (Array.isArray(current)) return ARRAY;
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[part];
  }
  return Array.isArray(current) ? ARRAY : current;
}

/** Comparison of same-typed scalars, as MongoDB does it within one BSON type. */
function comparison(operator: string, operand: Scalar): Test | undefined {
  const same = (value: unknown): value is Scalar => typeof value === typeof operand;
  switch (operator) {
    case '$eq':
      return (value) => value === operand;
    case '$ne':
      return (value) => value !== operand;
    case '$lt':
      return (value) => same(value) && value < operand;
    case '$lte':
      return (value) => same(value) && value <= operand;
    case '$gt':
      return (value) => same(value) && value > operand;
    case '$gte':
      return (value) => same(value) && value >= operand;
    case '$exists':
      return typeof operand === 'boolean'
        ? (value) => (value !== undefined) === operand
        : undefined;
    default:
      return undefined;
  }
}

function condition(expected: unknown): Test | undefined {
  if (isScalar(expected)) return (value) => value === expected;
  if (expected === null) return (value) => value === null || value === undefined;
  if (typeof expected !== 'object' || Array.isArray(expected)) return undefined;
  const tests: Test[] = [];
  for (const [operator, operand] of Object.entries(expected as Record<string, unknown>)) {
    const test = isScalar(operand) ? comparison(operator, operand) : undefined;
    if (test === undefined) return undefined;
    tests.push(test);
  }
  return tests.length === 0 ? undefined : (value) => tests.every((test) => test(value));
}

/**
 * Compiles a MongoDB filter to a predicate. Filters made only of top-level field paths compared
 * with scalars (`{a: 1, 'b.c': 'x', n: {$lt: 5}}`: equality, `$eq`, `$ne`, `$lt`, `$lte`, `$gt`,
 * `$gte`, `$exists`, no arrays) are compiled directly; every other filter is compiled by mingo. Both give
 * MongoDB's answer; the direct path only skips mingo's compilation on the hot paths (look-ups
 * by id and by key, revision guards).
 */
export function compileFilter(filter: Filter): (document: unknown) => boolean {
  const tests: [string, Test][] = [];
  for (const [path, expected] of Object.entries(filter)) {
    const test = path.startsWith('$') ? undefined : condition(expected);
    if (test === undefined) {
      const query = new Query(filter, {});
      return (document) => query.test(document as AnyObject);
    }
    tests.push([path, test]);
  }
  return (document) => {
    for (const [path, test] of tests) {
      const value = fieldValue(document, path);
      if (value === ARRAY) return new Query(filter, {}).test(document as AnyObject);
      if (!test(value)) return false;
    }
    return true;
  };
}
