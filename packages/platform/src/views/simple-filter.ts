import { mingoQuery } from './mingo.ts';
import type { Filter } from './view-store.ts';

type Scalar = string | number | boolean;
type Test = (value: unknown) => boolean;

const isScalar = (value: unknown): value is Scalar =>
  typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';

/** Marks a path that crosses or ends on an array, where MongoDB's array rules apply. */
const ARRAY = Symbol('array');

/** Value at a path split into its parts; {@link ARRAY} when the path crosses an array. */
function valueAt(document: unknown, parts: readonly string[]): unknown {
  let current: unknown = document;
  for (const part of parts) {
    if (Array.isArray(current)) return ARRAY;
    if (current === null || typeof current !== 'object') return undefined;
    current = Object.hasOwn(current, part) ? (current as Record<string, unknown>)[part] : undefined;
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

/** `$regex` with `$options` of `i`, `m` and `s` only, on string values. */
function regex(pattern: unknown, options: unknown): Test | undefined {
  if (typeof pattern !== 'string') return undefined;
  if (options !== undefined && (typeof options !== 'string' || !/^[ims]*$/.test(options))) {
    return undefined;
  }
  const expression = new RegExp(pattern, options ?? '');
  return (value) => typeof value === 'string' && expression.test(value);
}

function condition(expected: unknown): Test | undefined {
  if (isScalar(expected)) return (value) => value === expected;
  if (expected === null) return (value) => value === null || value === undefined;
  if (typeof expected !== 'object' || Array.isArray(expected)) return undefined;
  const operators = expected as Record<string, unknown>;
  const tests: Test[] = [];
  for (const [operator, operand] of Object.entries(operators)) {
    let test: Test | undefined;
    if (operator === '$regex') test = regex(operand, operators.$options);
    else if (operator === '$options') continue;
    else if (operator === '$not') {
      // Operators only (MongoDB refuses `$not` of a value); a missing field matches.
      const inner =
        operand !== null && typeof operand === 'object' && !Array.isArray(operand)
          ? condition(operand)
          : undefined;
      test = inner === undefined ? undefined : (value) => !inner(value);
    } else if (operator === '$in' && Array.isArray(operand) && operand.every(isScalar)) {
      const members = new Set<unknown>(operand);
      test = (value) => members.has(value);
    } else if (isScalar(operand)) test = comparison(operator, operand);
    if (test === undefined) return undefined;
    tests.push(test);
  }
  return tests.length === 0 ? undefined : (value) => tests.every((test) => test(value));
}

/**
 * Compiles a MongoDB filter to a predicate. Filters made only of top-level field paths compared
 * with scalars (`{a: 1, 'b.c': 'x', n: {$lt: 5}}`: equality, `$eq`, `$ne`, `$lt`, `$lte`, `$gt`,
 * `$gte`, `$exists`, `$in` of scalars, `$regex` with `$options` i/m/s, `$not` of those; no
 * arrays), and top-level `$and` and `$or` of such filters, are compiled directly; every other
 * filter is compiled by mingo. Both give
 * MongoDB's answer; the direct path only skips mingo's compilation on the hot paths (look-ups
 * by id and by key, revision guards).
 */
export function compileFilter(filter: Filter): (document: unknown) => boolean {
  const direct = compileDirect(filter);
  // Compiled by mingo once, when first needed.
  let query: InstanceType<ReturnType<typeof mingoQuery>['Query']> | undefined;
  const byMingo = (document: unknown): boolean => {
    query ??= new (mingoQuery().Query)(filter, {});
    return query.test(document);
  };
  if (direct === undefined) return byMingo;
  return (document) => {
    const answer = direct(document);
    return answer === ARRAY ? byMingo(document) : answer;
  };
}

/**
 * The direct predicate of `filter` (see {@link compileFilter}), also through top-level `$and`
 * and `$or` of such filters; it answers {@link ARRAY} where a path crosses an array. Undefined
 * for any other filter.
 */
function compileDirect(
  filter: Filter,
): ((document: unknown) => boolean | typeof ARRAY) | undefined {
  const tests: [string[], Test][] = [];
  const groups: ['$and' | '$or', ((document: unknown) => boolean | typeof ARRAY)[]][] = [];
  for (const [path, expected] of Object.entries(filter)) {
    if (path === '$and' || path === '$or') {
      if (!Array.isArray(expected) || expected.length === 0) return undefined;
      const members: ((document: unknown) => boolean | typeof ARRAY)[] = [];
      for (const member of expected as unknown[]) {
        if (member === null || typeof member !== 'object' || Array.isArray(member)) {
          return undefined;
        }
        const compiled = compileDirect(member as Filter);
        if (compiled === undefined) return undefined;
        members.push(compiled);
      }
      groups.push([path, members]);
      continue;
    }
    const test = path.startsWith('$') ? undefined : condition(expected);
    if (test === undefined) return undefined;
    tests.push([path.split('.'), test]);
  }
  return (document) => {
    for (const [parts, test] of tests) {
      const value = valueAt(document, parts);
      if (value === ARRAY) return ARRAY;
      if (!test(value)) return false;
    }
    for (const [kind, members] of groups) {
      let any = false;
      for (const member of members) {
        const answer = member(document);
        if (answer === ARRAY) return ARRAY;
        if (kind === '$and' && !answer) return false;
        if (answer) any = true;
      }
      if (kind === '$or' && !any) return false;
    }
    return true;
  };
}

/** BSON type order of the values the fast sort handles (MongoDB's sort order across types). */
function typeRank(value: unknown): number | undefined {
  if (value === undefined || value === null) return 1;
  if (typeof value === 'number') return 2;
  if (typeof value === 'string') return 3;
  if (typeof value === 'boolean') return 8;
  return undefined;
}

/**
 * Compiles a sort specification to a comparator when every sort key holds a scalar, null or
 * nothing in the documents compared; it throws `UnsortableError` on any other value, so the
 * caller can fall back to a general sort. Order as MongoDB: by BSON type, then by value.
 */
export function compileSort(sort: Record<string, 1 | -1>): (a: unknown, b: unknown) => number {
  const keys = Object.entries(sort).map(
    ([path, direction]) => [path.split('.'), direction] as const,
  );
  return (a, b) => {
    for (const [parts, direction] of keys) {
      const left = valueAt(a, parts);
      const right = valueAt(b, parts);
      const leftRank = typeRank(left);
      const rightRank = typeRank(right);
      if (leftRank === undefined || rightRank === undefined) throw new UnsortableError();
      let order = leftRank - rightRank;
      if (order === 0 && leftRank !== 1) {
        order =
          (left as Scalar) < (right as Scalar) ? -1 : (left as Scalar) > (right as Scalar) ? 1 : 0;
      }
      if (order !== 0) return order * direction;
    }
    return 0;
  };
}

/** Thrown by a {@link compileSort} comparator on a value it does not order (object, array). */
export class UnsortableError extends Error {
  constructor() {
    super('sort key holds a value the fast sort does not order');
    this.name = 'UnsortableError';
  }
}
