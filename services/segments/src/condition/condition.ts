/**
 * The filter language of segment conditions and campaign audience filters (API reference,
 * "Filter language"): its types, which operators apply to which fields, the values they take,
 * and the limits of one condition. Validation is in `parse.ts`, the MongoDB translation in
 * `compile.ts`, the reference evaluation in `evaluate.ts`.
 *
 * Operators by field kind (value shapes in {@link FIELD_OPERATORS}):
 * - `email`: equals, notEquals, contains, notContains (text).
 * - `subscribed`: equals, notEquals (boolean).
 * - `createdAt`, `updatedAt`: equals, notEquals, greaterThan, greaterThanOrEqual, lessThan,
 *   lessThanOrEqual (a date `YYYY-MM-DD` or an ISO 8601 timestamp with zone), within, olderThan
 *   (a duration with `unit`).
 * - `data.<key>`: equals, notEquals (text, number or boolean), contains, notContains (text),
 *   greaterThan, greaterThanOrEqual, lessThan, lessThanOrEqual (number or text), exists,
 *   notExists (no value), within, olderThan (a duration with `unit`).
 * - `event.<name>`, `email.<sent|delivery|open|click|bounce|complaint>`: triggered,
 *   notTriggered (no value), triggeredWithin, triggeredOlderThan, notTriggeredWithin (a duration
 *   with `unit`).
 * - `segment.<id>`: memberOfSegment, notMemberOfSegment (no value).
 */
import {
  FIELD_OPERATORS,
  FILTER_OPERATORS,
  type FilterOperator,
  type FilterValueShape,
} from '@stamp/contracts/filters';

/** How the groups of a condition are joined. */
export type Logic = 'AND' | 'OR';

/** An operator of the filter language. */
export type Operator = FilterOperator;

/** Units of the durations of relative-time operators. */
export const TIME_UNITS = ['minutes', 'hours', 'days'] as const;

/** A unit of a duration. */
export type TimeUnit = (typeof TIME_UNITS)[number];

/** Milliseconds in one of each {@link TimeUnit}. */
export const UNIT_MS: Readonly<Record<TimeUnit, number>> = {
  minutes: 60_000,
  hours: 3_600_000,
  days: 86_400_000,
};

/** A value of a filter: text, a finite number or a boolean (which one depends on the operator). */
export type FilterValue = string | number | boolean;

/**
 * One test of a contact. `field` names what is tested (see the module comment), `value` what it
 * is compared with, `unit` the unit of the duration `value` of a relative-time operator.
 */
export interface Filter {
  field: string;
  operator: Operator;
  value?: FilterValue;
  unit?: TimeUnit;
}

/** Filters joined by AND; `conditions`, when present, is ANDed with them. */
export interface ConditionGroup {
  filters: Filter[];
  conditions?: Condition;
}

/** Groups joined by `logic`. */
export interface Condition {
  logic: Logic;
  groups: ConditionGroup[];
}

/** Kinds of email activity a contact may have (`email.<kind>` fields). */
export const EMAIL_ACTIVITIES = [
  'sent',
  'delivery',
  'open',
  'click',
  'bounce',
  'complaint',
] as const;

/** A kind of email activity. */
export type EmailActivity = (typeof EMAIL_ACTIVITIES)[number];

/** A filter's field, parsed. */
export type FieldRef =
  | { kind: 'email' }
  | { kind: 'subscribed' }
  | { kind: 'date'; name: 'createdAt' | 'updatedAt' }
  | { kind: 'data'; key: string }
  | { kind: 'event'; name: string }
  | { kind: 'emailActivity'; activity: EmailActivity }
  | { kind: 'segment'; id: string };

/** Kind of a field, the key of {@link FIELD_OPERATORS}. */
export type FieldKind = FieldRef['kind'];

/**
 * What value an operator takes (the filter language's table, shared with the dashboard). Text is
 * 1 to {@link MAX_TEXT_LENGTH} characters; a duration is positive and whole, with a `unit`.
 */
export type ValueShape = FilterValueShape;

export { FIELD_OPERATORS, FILTER_OPERATORS as OPERATORS };

/** Most levels of nested conditions: the top condition is level 1, its groups' `conditions` 2. */
export const MAX_DEPTH = 5;
/** Most filters in one condition, nested conditions included. */
export const MAX_FILTERS = 100;
/** Most groups in one condition, nested conditions included. */
export const MAX_GROUPS = 100;
/**
 * Most filters compiled or evaluated for one condition once the conditions of the untracked
 * dynamic segments it references are inlined.
 */
export const MAX_EXPANDED_FILTERS = 1000;
/** Most characters of a text value. */
export const MAX_TEXT_LENGTH = 2000;
/** Most characters of a data key, event name or segment id in a field. */
export const MAX_NAME_LENGTH = 255;
/** Longest duration of a relative-time operator, in days (about 100 years) in any unit. */
export const MAX_DURATION_DAYS = 36_500;

/** Largest duration value of each unit ({@link MAX_DURATION_DAYS} in that unit). */
export const MAX_DURATION: Readonly<Record<TimeUnit, number>> = {
  minutes: MAX_DURATION_DAYS * 24 * 60,
  hours: MAX_DURATION_DAYS * 24,
  days: MAX_DURATION_DAYS,
};

/**
 * The parsed field `field`, or undefined when the language has no such field (an unknown name,
 * an unknown email activity, or an empty or longer than 255-character key, name or id).
 */
export function parseField(field: string): FieldRef | undefined {
  switch (field) {
    case 'email':
      return { kind: 'email' };
    case 'subscribed':
      return { kind: 'subscribed' };
    case 'createdAt':
    case 'updatedAt':
      return { kind: 'date', name: field };
  }
  const dot = field.indexOf('.');
  if (dot === -1) return undefined;
  const prefix = field.slice(0, dot);
  const rest = field.slice(dot + 1);
  if (rest.length === 0 || rest.length > MAX_NAME_LENGTH) return undefined;
  switch (prefix) {
    case 'data':
      return { kind: 'data', key: rest };
    case 'event':
      return { kind: 'event', name: rest };
    case 'segment':
      return { kind: 'segment', id: rest };
    case 'email':
      return (EMAIL_ACTIVITIES as readonly string[]).includes(rest)
        ? { kind: 'emailActivity', activity: rest as EmailActivity }
        : undefined;
    default:
      return undefined;
  }
}

/** Length of `duration` `unit`s in milliseconds. */
export const durationMs = (duration: number, unit: TimeUnit): number => duration * UNIT_MS[unit];

/**
 * The cutoff of a relative-time operator: the instant `duration` `unit`s before `now`, as ISO
 * 8601 text (`YYYY-MM-DDTHH:mm:ss.sssZ`, UTC), the form timestamps are compared in.
 */
export const cutoffOf = (now: Date, duration: number, unit: TimeUnit): string =>
  new Date(now.getTime() - durationMs(duration, unit)).toISOString();

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,3})?)?(?:Z|[+-]\d{2}:\d{2})$/;
const FOUR_DIGIT_YEAR = /^\d{4}-/;

/**
 * The span of instants a date value of `createdAt`/`updatedAt` denotes, as ISO 8601 texts
 * (`start` inclusive, `end` exclusive): a UTC day for `YYYY-MM-DD`, one millisecond for a
 * timestamp (`YYYY-MM-DDTHH:mm[:ss[.sss]]` with `Z` or `±HH:MM`). Undefined for any other text,
 * an impossible date, or a span outside the years 0000 to 9999.
 */
export function dateSpan(value: string): { start: string; end: string } | undefined {
  let start: number;
  let length: number;
  if (DAY.test(value)) {
    start = Date.parse(`${value}T00:00:00.000Z`);
    // An impossible day (2025-02-30) parses as NaN or as another day.
    if (Number.isNaN(start) || new Date(start).toISOString().slice(0, 10) !== value) {
      return undefined;
    }
    length = UNIT_MS.days;
  } else if (TIMESTAMP.test(value)) {
    start = Date.parse(value);
    if (Number.isNaN(start)) return undefined;
    length = 1;
  } else {
    return undefined;
  }
  const span = {
    start: new Date(start).toISOString(),
    end: new Date(start + length).toISOString(),
  };
  return FOUR_DIGIT_YEAR.test(span.start) && FOUR_DIGIT_YEAR.test(span.end) ? span : undefined;
}

/**
 * The values of contact data that `equals` takes for `value`: the value itself and its other
 * representation, so that data imported from CSV (always text) matches numbers and booleans:
 * a number also matches its decimal text (`30` and `"30"`), a boolean its text (`true` and
 * `"true"`), and text that is the decimal form of a number or `true`/`false` matches that
 * number or boolean.
 */
export function equalValues(value: FilterValue): FilterValue[] {
  if (typeof value === 'number') return [value, String(value)];
  if (typeof value === 'boolean') return [value, String(value)];
  if (value === 'true') return [value, true];
  if (value === 'false') return [value, false];
  const number = Number(value);
  if (value.trim() !== '' && Number.isFinite(number) && String(number) === value) {
    return [value, number];
  }
  return [value];
}

/** Lower and upper bounds of the text of a data value `within`/`olderThan` compare as dates. */
export const DATE_TEXT = {
  /** Smallest: date texts start with a digit. */
  from: '0',
  /** Above every text starting with a digit (`:` follows `9`). */
  below: ':',
} as const;

/** Escapes the regular-expression metacharacters of `text`, which then matches itself. */
export const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** How a referenced segment is tested; see {@link SegmentResolver}. */
export interface SegmentReference {
  type: 'STATIC' | 'DYNAMIC';
  /** The condition of a dynamic segment. */
  condition?: Condition;
  /** Whether the membership of the segment is kept (its ids are in the `segments` field). */
  trackMembership: boolean;
}

/**
 * Looks up a segment of the project by id, synchronously (the project's segments are few, and
 * `GET /segments` lists them all): undefined when there is none.
 */
export type SegmentResolver = (id: string) => SegmentReference | undefined;

/**
 * What compiling or evaluating a condition needs besides the condition itself.
 * `now` resolves relative-time operators; `resolveSegment` resolves `segment.<id>` fields;
 * `segmentId`, when the condition is a segment's own, makes a reference back to it a cycle;
 * `field` is the path of the condition in errors (default `condition`; campaigns pass
 * `audienceFilter`).
 */
export interface ConditionContext {
  now: Date;
  resolveSegment: SegmentResolver;
  segmentId?: string;
  field?: string;
}
