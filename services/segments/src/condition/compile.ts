/**
 * Translation of conditions to MongoDB filters over audience documents, in the operators both
 * view stores answer: `$and`, `$or`, `$nor`, `$in`, `$nin`, `$gt(e)`, `$lt(e)`, `$exists` and
 * `$regex` with `$options: 'i'` (a literal, escaped text). The embedded store translates all of
 * them to SQL except on the `segments` array (membership of static and tracked segments), which
 * it tests row by row, like a `contains` of text with non-ASCII characters.
 */
import type { Filter as MongoFilter } from '@stamp/platform';

import {
  type Condition,
  type ConditionContext,
  cutoffOf,
  DATE_TEXT,
  dateSpan,
  equalValues,
  escapeRegExp,
  type Filter,
  type FilterValue,
  parseField,
  type SegmentResolver,
  type TimeUnit,
} from './condition.ts';
import { dataPath, emailLastPath, eventLastPath } from './audience.ts';
import { checkSegmentReferences, isInlined, resolvedSegment } from './references.ts';

/** A MongoDB query filter over audience documents, as the view stores take it. */
export type ViewFilter = MongoFilter;

/** Matches every document. */
const EVERYTHING: ViewFilter = {};
/** Matches no document. */
const NOTHING: ViewFilter = { $nor: [{}] };

const allOfFilters = (parts: ViewFilter[]): ViewFilter =>
  parts.length === 0 ? EVERYTHING : parts.length === 1 ? (parts[0] ?? EVERYTHING) : { $and: parts };
const anyOfFilters = (parts: ViewFilter[]): ViewFilter =>
  parts.length === 0 ? NOTHING : parts.length === 1 ? (parts[0] ?? NOTHING) : { $or: parts };
const not = (part: ViewFilter): ViewFilter => ({ $nor: [part] });

/**
 * The MongoDB filter selecting the audience documents (see `AudienceDocument`) that satisfy
 * `condition` at `context.now`; it gives the answer of {@link evaluateCondition}. Semantics per
 * operator:
 * - `email` equals / notEquals: the address equals the value trimmed and lowercased (addresses
 *   are stored lowercase); contains / notContains: case-insensitive substring of the address.
 * - `subscribed` equals / notEquals: the subscription state is / is not the value.
 * - `createdAt`, `updatedAt` with a date (a UTC day `YYYY-MM-DD` or a timestamp, one
 *   millisecond): equals = within the day or at the instant; greaterThan = after it,
 *   greaterThanOrEqual = at or after its start, lessThan = before its start, lessThanOrEqual = not
 *   after it; within = at or after `now` minus the duration, olderThan = before it.
 * - `data.<key>`: equals = the value or its other representation (`30` and `"30"`, `true` and
 *   `"true"`); contains = case-insensitive substring of a text value; greaterThan… with a number
 *   compare number values only, with text text values only (in code point order); exists = the
 *   key is set; within / olderThan as for `createdAt` on text values that start with a digit,
 *   compared as text with the cutoff in `toISOString` form: exact for values in that form, a
 *   date-only value `YYYY-MM-DD` counts as just before its day, a timestamp without
 *   milliseconds as just after its second; a future date is `within`.
 * - `event.<name>`, `email.<kind>` (the time of the last one): triggered = at least once;
 *   triggeredWithin = last at or after `now` minus the duration; triggeredOlderThan = triggered,
 *   the last time before it; notTriggered, notTriggeredWithin = the negations.
 * - `segment.<id>` memberOfSegment: the id is in the document's `segments` (static or tracked
 *   segment) or the segment's own condition holds (untracked dynamic segment, inlined).
 * - Every negation (notEquals, notContains, notExists, notTriggered, notTriggeredWithin,
 *   notMemberOfSegment) matches exactly the documents its positive form does not, contacts
 *   without the field included.
 *
 * `condition` is one {@link parseCondition} returned (as are the conditions of the segments
 * `context.resolveSegment` gives).
 * @throws ApiError 422 VALIDATION_ERROR (see {@link checkSegmentReferences}) for an unknown
 *   segment, a cycle of segment references or too large an expansion, naming the filter's field
 *   under `context.field` (`condition` by default).
 */
export function compileCondition(condition: Condition, context: ConditionContext): ViewFilter {
  checkSegmentReferences(condition, context);
  return compileAt(condition, context.now, context.resolveSegment);
}

function compileAt(condition: Condition, now: Date, resolve: SegmentResolver): ViewFilter {
  const groups = condition.groups.map((group) => {
    const parts = group.filters.map((filter) => compileFilter(filter, now, resolve));
    if (group.conditions !== undefined) parts.push(compileAt(group.conditions, now, resolve));
    return allOfFilters(parts);
  });
  return condition.logic === 'AND' ? allOfFilters(groups) : anyOfFilters(groups);
}

/** Text of a validated filter value. */
export function textValue(filter: Filter): string {
  if (typeof filter.value !== 'string') throw new TypeError(`${filter.field}: expected text`);
  return filter.value;
}

/** Scalar of a validated filter value. */
export function scalarValue(filter: Filter): FilterValue {
  if (filter.value === undefined) throw new TypeError(`${filter.field}: expected a value`);
  return filter.value;
}

/** Date span of a validated filter value. */
export function spanValue(filter: Filter): { start: string; end: string } {
  const span = dateSpan(textValue(filter));
  if (span === undefined) throw new TypeError(`${filter.field}: expected a date`);
  return span;
}

/** Cutoff of a validated relative-time filter at `now` (ISO 8601 UTC text). */
export function cutoffValue(filter: Filter, now: Date): string {
  return cutoffOf(now, durationValue(filter), unitValue(filter));
}

/** Duration of a validated relative-time filter. */
export function durationValue(filter: Filter): number {
  if (typeof filter.value !== 'number') throw new TypeError(`${filter.field}: expected a number`);
  return filter.value;
}

/** Unit of a validated relative-time filter. */
export function unitValue(filter: Filter): TimeUnit {
  if (filter.unit === undefined) throw new TypeError(`${filter.field}: expected a unit`);
  return filter.unit;
}

const unsupported = (filter: Filter): Error =>
  new TypeError(`operator ${filter.operator} does not apply to ${filter.field}`);

function compileFilter(filter: Filter, now: Date, resolve: SegmentResolver): ViewFilter {
  const ref = parseField(filter.field);
  if (ref === undefined) throw new TypeError(`unknown field ${filter.field}`);
  const { operator } = filter;
  switch (ref.kind) {
    case 'email': {
      const text = textValue(filter);
      const equal = { email: text.trim().toLowerCase() };
      const contains = { email: { $regex: escapeRegExp(text), $options: 'i' } };
      if (operator === 'equals') return equal;
      if (operator === 'notEquals') return not(equal);
      if (operator === 'contains') return contains;
      if (operator === 'notContains') return not(contains);
      throw unsupported(filter);
    }
    case 'subscribed': {
      if (typeof filter.value !== 'boolean') throw unsupported(filter);
      if (operator === 'equals') return { subscribed: filter.value };
      if (operator === 'notEquals') return not({ subscribed: filter.value });
      throw unsupported(filter);
    }
    case 'date': {
      const path = ref.name;
      switch (operator) {
        case 'within':
          return { [path]: { $gte: cutoffValue(filter, now) } };
        case 'olderThan':
          return { [path]: { $lt: cutoffValue(filter, now) } };
      }
      const { start, end } = spanValue(filter);
      switch (operator) {
        case 'equals':
          return { [path]: { $gte: start, $lt: end } };
        case 'notEquals':
          return not({ [path]: { $gte: start, $lt: end } });
        case 'greaterThan':
          return { [path]: { $gte: end } };
        case 'greaterThanOrEqual':
          return { [path]: { $gte: start } };
        case 'lessThan':
          return { [path]: { $lt: start } };
        case 'lessThanOrEqual':
          return { [path]: { $lt: end } };
        default:
          throw unsupported(filter);
      }
    }
    case 'data': {
      const path = dataPath(ref.key);
      switch (operator) {
        case 'exists':
          return { [path]: { $exists: true } };
        case 'notExists':
          return { [path]: { $exists: false } };
        case 'equals':
          return { [path]: { $in: equalValues(scalarValue(filter)) } };
        case 'notEquals':
          return { [path]: { $nin: equalValues(scalarValue(filter)) } };
        case 'contains':
          return { [path]: { $regex: escapeRegExp(textValue(filter)), $options: 'i' } };
        case 'notContains':
          return not({ [path]: { $regex: escapeRegExp(textValue(filter)), $options: 'i' } });
        case 'greaterThan':
          return { [path]: { $gt: orderedValue(filter) } };
        case 'greaterThanOrEqual':
          return { [path]: { $gte: orderedValue(filter) } };
        case 'lessThan':
          return { [path]: { $lt: orderedValue(filter) } };
        case 'lessThanOrEqual':
          return { [path]: { $lte: orderedValue(filter) } };
        case 'within':
          return { [path]: { $gte: cutoffValue(filter, now), $lt: DATE_TEXT.below } };
        case 'olderThan':
          return { [path]: { $gte: DATE_TEXT.from, $lt: cutoffValue(filter, now) } };
        default:
          throw unsupported(filter);
      }
    }
    case 'event':
    case 'emailActivity': {
      const path = ref.kind === 'event' ? eventLastPath(ref.name) : emailLastPath(ref.activity);
      switch (operator) {
        case 'triggered':
          return { [path]: { $exists: true } };
        case 'notTriggered':
          return { [path]: { $exists: false } };
        case 'triggeredWithin':
          return { [path]: { $gte: cutoffValue(filter, now) } };
        case 'triggeredOlderThan':
          return { [path]: { $lt: cutoffValue(filter, now) } };
        case 'notTriggeredWithin':
          return not({ [path]: { $gte: cutoffValue(filter, now) } });
        default:
          throw unsupported(filter);
      }
    }
    case 'segment': {
      const segment = resolvedSegment(resolve, ref.id);
      const member =
        isInlined(segment) && segment.condition !== undefined
          ? compileAt(segment.condition, now, resolve)
          : { segments: ref.id };
      if (operator === 'memberOfSegment') return member;
      if (operator === 'notMemberOfSegment') return not(member);
      throw unsupported(filter);
    }
  }
}

/** Number or text of a validated ordering filter. */
function orderedValue(filter: Filter): string | number {
  const { value } = filter;
  if (typeof value !== 'string' && typeof value !== 'number') throw unsupported(filter);
  return value;
}
