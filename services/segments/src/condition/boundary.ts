/** When the passage of time alone can change whether a contact satisfies a condition. */
import {
  type Condition,
  durationMs,
  type Filter,
  parseField,
  type SegmentResolver,
} from './condition.ts';
import {
  type AudienceDocument,
  dataPath,
  emailLastPath,
  encodePathKey,
  eventLastPath,
} from './audience.ts';
import { durationValue, unitValue } from './compile.ts';
import { forEachFilter, isInlined, segmentIdOf } from './references.ts';

/** First and last instants (ms since the epoch) whose ISO 8601 text has a four-digit year. */
const FIRST_INSTANT = Date.parse('0000-01-01T00:00:00.000Z');
const LAST_INSTANT = Date.parse('9999-12-31T23:59:59.999Z');

const isoText = (instant: number): string => new Date(instant).toISOString();

/**
 * The first instant (ms since the epoch) whose ISO 8601 UTC text sorts after `text`, or undefined
 * when none does (ISO texts of years 0000 to 9999 sort as their instants). For a stored
 * timestamp `t` (`toISOString` form) it is `t + 1 ms`; for `YYYY-MM-DD` the start of that day.
 */
export function firstInstantAfter(text: string): number | undefined {
  const parsed = Date.parse(text);
  if (!Number.isNaN(parsed) && parsed >= FIRST_INSTANT && parsed < LAST_INSTANT) {
    if (isoText(parsed) === text) return parsed + 1;
  }
  if (isoText(LAST_INSTANT) <= text) return undefined;
  if (isoText(FIRST_INSTANT) > text) return FIRST_INSTANT;
  // isoText(low) <= text < isoText(high); ASCII texts, so `<` is the code point order.
  let low = FIRST_INSTANT;
  let high = LAST_INSTANT;
  while (high - low > 1) {
    const middle = low + Math.floor((high - low) / 2);
    if (isoText(middle) > text) high = middle;
    else low = middle;
  }
  return high;
}

/**
 * The text timestamp a relative-time filter compares with its cutoff in `document`, or
 * undefined when the filter is not relative to time or the document holds no text there.
 */
function timestampOf(filter: Filter, document: AudienceDocument): string | undefined {
  const ref = parseField(filter.field);
  if (ref === undefined) return undefined;
  let value: unknown;
  switch (filter.operator) {
    case 'within':
    case 'olderThan':
      if (ref.kind === 'date') value = document[ref.name];
      else if (ref.kind === 'data') value = ownValue(document.data, encodePathKey(ref.key));
      break;
    case 'triggeredWithin':
    case 'triggeredOlderThan':
    case 'notTriggeredWithin':
      if (ref.kind === 'event') {
        value = ownValue(ownValue(document.events, encodePathKey(ref.name)), 'last');
      } else if (ref.kind === 'emailActivity') {
        value = ownValue(ownValue(document.emails, ref.activity), 'last');
      }
      break;
    default:
      return undefined;
  }
  return typeof value === 'string' ? value : undefined;
}

function ownValue(object: unknown, key: string): unknown {
  if (object === null || typeof object !== 'object') return undefined;
  return Object.hasOwn(object, key) ? (object as Record<string, unknown>)[key] : undefined;
}

/**
 * The earliest instant after `now` at which the passage of time alone could change whether
 * `document` satisfies `condition`, or undefined when it never can (for the durable timer that
 * re-tests the contact). A relative-time filter (within, olderThan, triggeredWithin,
 * triggeredOlderThan, notTriggeredWithin) compares a timestamp `t` of the document with the
 * cutoff `now − duration`; its answer flips when the cutoff passes `t`, at the first instant whose
 * ISO text sorts after `t` plus the duration (`t + 1 ms + duration` for a stored timestamp). The
 * result is the earliest such instant after `now` over every relative-time filter, whatever the
 * logic around it: never later than the first real change, possibly earlier (a filter whose flip
 * does not change the result); evaluating again at the returned instant gives the next one.
 * @param resolveSegment when given, the conditions of the untracked dynamic segments referenced
 *   (inlined by compileCondition) are searched too; without it they are not. Static and tracked
 *   segments change by their own membership events. Unknown segments and cycles are skipped.
 */
export function nextBoundary(
  condition: Condition,
  document: AudienceDocument,
  now: Date,
  resolveSegment?: SegmentResolver,
): Date | undefined {
  const after = now.getTime();
  let earliest: number | undefined;
  forEachTimedFilter(condition, resolveSegment, (filter) => {
    const timestamp = timestampOf(filter, document);
    if (timestamp === undefined) return;
    const crossed = firstInstantAfter(timestamp);
    if (crossed === undefined) return;
    const instant = crossed + durationMs(durationValue(filter), unitValue(filter));
    if (instant > after && (earliest === undefined || instant < earliest)) earliest = instant;
  });
  return earliest === undefined ? undefined : new Date(earliest);
}

/** Operators whose answer moves with the clock. */
const TIMED_OPERATORS: ReadonlySet<string> = new Set([
  'within',
  'olderThan',
  'triggeredWithin',
  'triggeredOlderThan',
  'notTriggeredWithin',
]);

/**
 * Calls `visit` with each relative-time filter of `condition` and of the untracked dynamic
 * segments it inlines (through `resolveSegment`, once each; unknown segments are skipped).
 */
function forEachTimedFilter(
  condition: Condition,
  resolveSegment: SegmentResolver | undefined,
  visit: (filter: Filter) => void,
): void {
  const visited = new Set<string>();
  const each = (filter: Filter): void => {
    const id = segmentIdOf(filter);
    if (id !== undefined) {
      const segment = resolveSegment?.(id);
      if (segment === undefined || visited.has(id)) return;
      visited.add(id);
      if (isInlined(segment) && segment.condition !== undefined) {
        forEachFilter(segment.condition, '', each);
      }
      return;
    }
    if (TIMED_OPERATORS.has(filter.operator)) visit(filter);
  };
  forEachFilter(condition, '', each);
}

/** Path of the timestamp a relative-time filter compares, in audience documents. */
function timestampPath(filter: Filter): string | undefined {
  const ref = parseField(filter.field);
  switch (ref?.kind) {
    case 'date':
      return ref.name;
    case 'data':
      return dataPath(ref.key);
    case 'event':
      return eventLastPath(ref.name);
    case 'emailActivity':
      return emailLastPath(ref.activity);
    default:
      return undefined;
  }
}

/** One day, ms: the slack of {@link boundaryFilter} for date-only and other non-ISO texts. */
const DAY_MS = 86_400_000;

/**
 * The MongoDB filter of the audience documents that may have a {@link nextBoundary} after `now`
 * for `condition` (a superset: a document outside it has none), or undefined when the condition
 * has no relative-time filter, so that the clock never changes its answer. A filter comparing
 * timestamp `t` with `now − duration` can flip later only when `t` is after `now − duration`
 * (one day earlier is taken, for texts that are not in `toISOString` form).
 */
export function boundaryFilter(
  condition: Condition,
  now: Date,
  resolveSegment?: SegmentResolver,
): Record<string, unknown> | undefined {
  const parts: Record<string, unknown>[] = [];
  forEachTimedFilter(condition, resolveSegment, (filter) => {
    const path = timestampPath(filter);
    if (path === undefined) return;
    const from = now.getTime() - durationMs(durationValue(filter), unitValue(filter)) - DAY_MS;
    parts.push({ [path]: { $gte: isoText(Math.max(from, FIRST_INSTANT)) } });
  });
  if (parts.length === 0) return undefined;
  return parts.length === 1 ? parts[0] : { $or: parts };
}
