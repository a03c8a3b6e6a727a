/**
 * Direct evaluation of conditions on one audience document, in plain TypeScript: the reference
 * that the compiled MongoDB filters are tested against, and the way to test one contact without
 * a query.
 */
import {
  type Condition,
  type ConditionContext,
  DATE_TEXT,
  equalValues,
  escapeRegExp,
  type Filter,
  parseField,
  type SegmentResolver,
} from './condition.ts';
import { type AudienceDocument, encodePathKey } from './audience.ts';
import { cutoffValue, scalarValue, spanValue, textValue } from './compile.ts';
import { checkSegmentReferences, isInlined, resolvedSegment } from './references.ts';

/**
 * Order of two texts by code points, as MongoDB and SQLite compare strings (their UTF-8 bytes):
 * negative, zero or positive. JavaScript's `<` compares UTF-16 units instead, which orders a
 * character above U+FFFF before one in U+E000 to U+FFFF.
 */
export function compareText(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let index = 0; index < length; index += 1) {
    const left = a.charCodeAt(index);
    const right = b.charCodeAt(index);
    if (left === right) continue;
    const leftSurrogate = left >= 0xd800 && left <= 0xdfff;
    const rightSurrogate = right >= 0xd800 && right <= 0xdfff;
    // A surrogate (part of a character above U+FFFF) is above every unit outside them.
    if (leftSurrogate !== rightSurrogate) return leftSurrogate ? 1 : -1;
    return left - right;
  }
  return a.length - b.length;
}

/** Own property `key` of `object`, when it is an object holding it. */
function own(object: unknown, key: string): unknown {
  if (object === null || typeof object !== 'object' || Array.isArray(object)) return undefined;
  return Object.hasOwn(object, key) ? (object as Record<string, unknown>)[key] : undefined;
}

/**
 * Whether `document` satisfies `condition` at `context.now`: the answer the filter of
 * {@link compileCondition} selects (the semantics per operator are listed there), computed
 * directly. Untracked dynamic segments are evaluated through their conditions; static and
 * tracked ones through the document's `segments`.
 * @throws ApiError 422 VALIDATION_ERROR as {@link compileCondition}: unknown segment, cycle of
 *   segment references, too large an expansion.
 */
export function evaluateCondition(
  condition: Condition,
  document: AudienceDocument,
  context: ConditionContext,
): boolean {
  checkSegmentReferences(condition, context);
  return holds(condition, document, context.now, context.resolveSegment);
}

function holds(
  condition: Condition,
  document: AudienceDocument,
  now: Date,
  resolve: SegmentResolver,
): boolean {
  const groupHolds = (group: Condition['groups'][number]): boolean =>
    group.filters.every((filter) => matches(filter, document, now, resolve)) &&
    (group.conditions === undefined || holds(group.conditions, document, now, resolve));
  return condition.logic === 'AND'
    ? condition.groups.every(groupHolds)
    : condition.groups.some(groupHolds);
}

const NEGATIONS: Readonly<Record<string, string>> = {
  notEquals: 'equals',
  notContains: 'contains',
  notExists: 'exists',
  notTriggered: 'triggered',
  notTriggeredWithin: 'triggeredWithin',
  notMemberOfSegment: 'memberOfSegment',
};

function matches(
  filter: Filter,
  document: AudienceDocument,
  now: Date,
  resolve: SegmentResolver,
): boolean {
  const positive = NEGATIONS[filter.operator];
  if (positive !== undefined) {
    return !matches(
      { ...filter, operator: positive as Filter['operator'] },
      document,
      now,
      resolve,
    );
  }
  const ref = parseField(filter.field);
  if (ref === undefined) throw new TypeError(`unknown field ${filter.field}`);
  const caseless = (value: unknown): boolean =>
    typeof value === 'string' && new RegExp(escapeRegExp(textValue(filter)), 'i').test(value);
  /** Text `value` compared with `bound` by `test` (false for any other type). */
  const text = (value: unknown, bound: string, test: (order: number) => boolean): boolean =>
    typeof value === 'string' && test(compareText(value, bound));
  switch (ref.kind) {
    case 'email': {
      const email = own(document, 'email');
      if (filter.operator === 'equals') return email === textValue(filter).trim().toLowerCase();
      if (filter.operator === 'contains') return caseless(email);
      break;
    }
    case 'subscribed':
      if (filter.operator === 'equals') return own(document, 'subscribed') === filter.value;
      break;
    case 'date': {
      const value = own(document, ref.name);
      if (filter.operator === 'within') {
        return text(value, cutoffValue(filter, now), (order) => order >= 0);
      }
      if (filter.operator === 'olderThan') {
        return text(value, cutoffValue(filter, now), (order) => order < 0);
      }
      const { start, end } = spanValue(filter);
      const atOrAfter = (bound: string): boolean => text(value, bound, (order) => order >= 0);
      const before = (bound: string): boolean => text(value, bound, (order) => order < 0);
      switch (filter.operator) {
        case 'equals':
          return atOrAfter(start) && before(end);
        case 'greaterThan':
          return atOrAfter(end);
        case 'greaterThanOrEqual':
          return atOrAfter(start);
        case 'lessThan':
          return before(start);
        case 'lessThanOrEqual':
          return before(end);
      }
      break;
    }
    case 'data': {
      const data = own(document, 'data');
      const key = encodePathKey(ref.key);
      const value = own(data, key);
      const bound = filter.value;
      const ordered = (test: (order: number) => boolean): boolean => {
        if (typeof bound === 'number') {
          return typeof value === 'number' && test(value < bound ? -1 : value > bound ? 1 : 0);
        }
        return typeof bound === 'string' && text(value, bound, test);
      };
      switch (filter.operator) {
        case 'exists':
          return value !== undefined;
        case 'equals':
          return equalValues(scalarValue(filter)).some((candidate) => candidate === value);
        case 'contains':
          return caseless(value);
        case 'greaterThan':
          return ordered((order) => order > 0);
        case 'greaterThanOrEqual':
          return ordered((order) => order >= 0);
        case 'lessThan':
          return ordered((order) => order < 0);
        case 'lessThanOrEqual':
          return ordered((order) => order <= 0);
        case 'within':
          return (
            text(value, cutoffValue(filter, now), (order) => order >= 0) &&
            text(value, DATE_TEXT.below, (order) => order < 0)
          );
        case 'olderThan':
          return (
            text(value, DATE_TEXT.from, (order) => order >= 0) &&
            text(value, cutoffValue(filter, now), (order) => order < 0)
          );
      }
      break;
    }
    case 'event':
    case 'emailActivity': {
      const summary =
        ref.kind === 'event'
          ? own(own(document, 'events'), encodePathKey(ref.name))
          : own(own(document, 'emails'), ref.activity);
      const last = own(summary, 'last');
      switch (filter.operator) {
        case 'triggered':
          return last !== undefined;
        case 'triggeredWithin':
          return text(last, cutoffValue(filter, now), (order) => order >= 0);
        case 'triggeredOlderThan':
          return text(last, cutoffValue(filter, now), (order) => order < 0);
      }
      break;
    }
    case 'segment': {
      if (filter.operator !== 'memberOfSegment') break;
      const segment = resolvedSegment(resolve, ref.id);
      if (isInlined(segment) && segment.condition !== undefined) {
        return holds(segment.condition, document, now, resolve);
      }
      const segments = own(document, 'segments');
      return Array.isArray(segments) && segments.includes(ref.id);
    }
  }
  throw new TypeError(`operator ${filter.operator} does not apply to ${filter.field}`);
}
