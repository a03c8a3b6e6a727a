/**
 * The filter language of segment conditions and campaign audience filters, as the API reference
 * ("Filter language") and `FilterConditionInput` of the OpenAPI document define it: the fields,
 * the operators each field takes, the value each operator takes, in words for people.
 */
import { FIELD_OPERATORS as LANGUAGE, type FilterValueShape } from '@stamp/contracts/filters';

import type { Schema } from '../../api/client';

/** A whole condition: groups joined by `logic`. */
export type Condition = Schema<'FilterConditionInput'>;
/** One group of a condition: its filters (ANDed) and an optional nested condition. */
export type ConditionGroup = Condition['groups'][number];
/** One filter: `{field, operator, value?, unit?}`. */
export type Filter = ConditionGroup['filters'][number];
/** An operator of the language. */
export type Operator = Filter['operator'];
/** A unit of a duration. */
export type TimeUnit = NonNullable<Filter['unit']>;

/** The kinds of field a filter can test, as the builder offers them. */
export type FieldKind =
  | 'email'
  | 'subscribed'
  | 'createdAt'
  | 'updatedAt'
  | 'data'
  | 'event'
  | 'emailActivity'
  | 'segment';

/** What value an operator takes on a field (`FilterValueShape` of the language's table). */
export type ValueShape = FilterValueShape;

/** The kinds of field in the order the builder lists them, with their names in words. */
export const FIELD_KINDS: readonly { value: FieldKind; label: string }[] = [
  { value: 'email', label: 'Email address' },
  { value: 'subscribed', label: 'Subscribed' },
  { value: 'createdAt', label: 'Date added' },
  { value: 'updatedAt', label: 'Date last updated' },
  { value: 'data', label: 'Contact data field' },
  { value: 'event', label: 'Event' },
  { value: 'emailActivity', label: 'Email activity' },
  { value: 'segment', label: 'Segment' },
];

/** The kinds of email activity (`email.<kind>` fields), in words. */
export const EMAIL_ACTIVITIES = [
  { value: 'sent', label: 'Was sent an email' },
  { value: 'delivery', label: 'Had an email delivered' },
  { value: 'open', label: 'Opened an email' },
  { value: 'click', label: 'Clicked a link in an email' },
  { value: 'bounce', label: 'Had an email bounce' },
  { value: 'complaint', label: 'Marked an email as spam' },
] as const;

/**
 * The operators each kind of field takes, in the order offered, with the value each takes: the
 * segments service's own table (`@stamp/contracts/filters`), with its `date` kind split into the
 * two date fields the builder lists.
 */
export const FIELD_OPERATORS: Readonly<
  Record<FieldKind, Readonly<Partial<Record<Operator, ValueShape>>>>
> = {
  email: LANGUAGE.email,
  subscribed: LANGUAGE.subscribed,
  createdAt: LANGUAGE.date,
  updatedAt: LANGUAGE.date,
  data: LANGUAGE.data,
  event: LANGUAGE.event,
  emailActivity: LANGUAGE.emailActivity,
  segment: LANGUAGE.segment,
};

/** The words of each operator (dates read "is after" rather than "is greater than"). */
export function operatorLabel(kind: FieldKind, operator: Operator): string {
  const dates = kind === 'createdAt' || kind === 'updatedAt';
  switch (operator) {
    case 'equals':
      return dates ? 'is on' : 'is';
    case 'notEquals':
      return dates ? 'is not on' : 'is not';
    case 'contains':
      return 'contains';
    case 'notContains':
      return 'does not contain';
    case 'greaterThan':
      return dates ? 'is after' : 'is greater than';
    case 'greaterThanOrEqual':
      return dates ? 'is on or after' : 'is at least';
    case 'lessThan':
      return dates ? 'is before' : 'is less than';
    case 'lessThanOrEqual':
      return dates ? 'is on or before' : 'is at most';
    case 'exists':
      return 'is set';
    case 'notExists':
      return 'is not set';
    case 'within':
      return 'is in the last';
    case 'olderThan':
      return 'is more than … ago';
    case 'triggered':
      return 'has happened';
    case 'notTriggered':
      return 'has never happened';
    case 'triggeredWithin':
      return 'happened in the last';
    case 'triggeredOlderThan':
      return 'last happened more than … ago';
    case 'notTriggeredWithin':
      return 'has not happened in the last';
    case 'memberOfSegment':
      return 'is a member';
    case 'notMemberOfSegment':
      return 'is not a member';
  }
}

/** The units of durations, in words. */
export const TIME_UNITS: readonly { value: TimeUnit; label: string }[] = [
  { value: 'minutes', label: 'minutes' },
  { value: 'hours', label: 'hours' },
  { value: 'days', label: 'days' },
];

/** A filter's field split into its kind and the name after the prefix (`data.plan` → plan). */
export interface FieldParts {
  kind: FieldKind;
  /** The data key, event name, email activity or segment id; empty for the other kinds. */
  name: string;
}

/** The kind and name of `field` (an unknown field reads as a data field with no key). */
export function fieldParts(field: string): FieldParts {
  switch (field) {
    case 'email':
    case 'subscribed':
    case 'createdAt':
    case 'updatedAt':
      return { kind: field, name: '' };
  }
  const dot = field.indexOf('.');
  const prefix = dot === -1 ? '' : field.slice(0, dot);
  const name = dot === -1 ? '' : field.slice(dot + 1);
  switch (prefix) {
    case 'data':
      return { kind: 'data', name };
    case 'event':
      return { kind: 'event', name };
    case 'email':
      return { kind: 'emailActivity', name };
    case 'segment':
      return { kind: 'segment', name };
    default:
      return { kind: 'data', name: '' };
  }
}

/** The field of `kind` with `name` (`data` and `plan` → `data.plan`). */
export function fieldOf(kind: FieldKind, name: string): string {
  switch (kind) {
    case 'data':
      return `data.${name}`;
    case 'event':
      return `event.${name}`;
    case 'emailActivity':
      return `email.${name}`;
    case 'segment':
      return `segment.${name}`;
    default:
      return kind;
  }
}

/** The operators of `kind`, in order. */
export function operatorsOf(kind: FieldKind): Operator[] {
  return Object.keys(FIELD_OPERATORS[kind]) as Operator[];
}

/** The value shape of `operator` on a field of `kind` (undefined: the operator does not apply). */
export function shapeOf(kind: FieldKind, operator: Operator): ValueShape | undefined {
  return FIELD_OPERATORS[kind][operator];
}

/** A new filter of `kind` with its first operator and no value yet. */
export function newFilter(kind: FieldKind = 'email', name = ''): Filter {
  const operator = operatorsOf(kind)[0] ?? 'equals';
  const filter: Filter = { field: fieldOf(kind, name), operator };
  return withShape(filter, kind, operator);
}

/**
 * `filter` with `operator`, keeping its value when the new operator takes the same kind of value
 * and giving a duration its unit (days unless it had one).
 */
export function withShape(filter: Filter, kind: FieldKind, operator: Operator): Filter {
  const before = shapeOf(kind, filter.operator);
  const after = shapeOf(kind, operator);
  const next: Filter = { field: filter.field, operator };
  if (after === 'duration') {
    next.unit = filter.unit ?? 'days';
    if (before === 'duration' && filter.value !== undefined) next.value = filter.value;
  } else if (after === 'boolean') {
    next.value = typeof filter.value === 'boolean' ? filter.value : true;
  } else if (after !== 'none' && before === after && filter.value !== undefined) {
    next.value = filter.value;
  }
  return next;
}

/** An empty condition: one group with one filter on the email address. */
export function emptyCondition(): Condition {
  return { logic: 'AND', groups: [{ filters: [newFilter()] }] };
}

/**
 * Whether `condition` is complete enough to send: every filter names its field, takes the value
 * its operator needs, and every group has a filter or a nested condition. The API checks the
 * rest (and names the path of any problem).
 */
export function isComplete(condition: Condition): boolean {
  if (condition.groups.length === 0) return false;
  return condition.groups.every(
    (group) =>
      (group.filters.length > 0 || group.conditions !== undefined) &&
      group.filters.every(filterComplete) &&
      (group.conditions === undefined || isComplete(group.conditions)),
  );
}

/** Kinds whose field carries a name: a data key, an event name, an activity or a segment id. */
const NAMED_KINDS: ReadonlySet<FieldKind> = new Set(['data', 'event', 'emailActivity', 'segment']);

function filterComplete(filter: Filter): boolean {
  const { kind, name } = fieldParts(filter.field);
  if (NAMED_KINDS.has(kind) && name.trim() === '') return false;
  const shape = shapeOf(kind, filter.operator);
  if (shape === undefined) return false;
  if (shape === 'none') return true;
  if (filter.value === undefined || filter.value === '') return false;
  return shape !== 'duration' || filter.unit !== undefined;
}
