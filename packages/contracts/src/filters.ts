/**
 * The filter language (API reference, "Filter language") of segment conditions, campaign audience
 * filters and workflow CONDITION steps: its operators and which field takes which, and reading it
 * without evaluating it. Free of dependencies, so the dashboard loads it as it is
 * (`@stamp/contracts/filters`).
 */

/**
 * The comparison operators of the filter language, shared by segment and audience filters (which
 * add the operators of time, events and segments) and workflow CONDITION steps (which have these
 * alone).
 */
export const COMPARISON_OPERATORS = [
  'equals',
  'notEquals',
  'contains',
  'notContains',
  'greaterThan',
  'lessThan',
  'greaterThanOrEqual',
  'lessThanOrEqual',
  'exists',
  'notExists',
] as const;

/** Every operator of the filter language (API reference, "Filter language"). */
export const FILTER_OPERATORS = [
  ...COMPARISON_OPERATORS,
  'within',
  'olderThan',
  'triggered',
  'triggeredWithin',
  'triggeredOlderThan',
  'notTriggered',
  'notTriggeredWithin',
  'memberOfSegment',
  'notMemberOfSegment',
] as const;

/** An operator of the filter language. */
export type FilterOperator = (typeof FILTER_OPERATORS)[number];

/**
 * The kinds of field: `email`, `subscribed`, `date` (`createdAt`, `updatedAt`), `data.<key>`,
 * `event.<name>`, `emailActivity` (`email.<kind>`) and `segment.<id>`.
 */
export type FilterFieldKind =
  'email' | 'subscribed' | 'date' | 'data' | 'event' | 'emailActivity' | 'segment';

/**
 * What value an operator takes on a kind of field: none, text, a boolean, a date, text or number
 * or boolean (`scalar`), number or text (`ordered`), or a whole duration with a unit (`duration`).
 */
export type FilterValueShape =
  'none' | 'text' | 'boolean' | 'date' | 'scalar' | 'ordered' | 'duration';

const DATE_OPERATORS = {
  equals: 'date',
  notEquals: 'date',
  greaterThan: 'date',
  greaterThanOrEqual: 'date',
  lessThan: 'date',
  lessThanOrEqual: 'date',
  within: 'duration',
  olderThan: 'duration',
} as const;

const HAPPENED_OPERATORS = {
  triggered: 'none',
  notTriggered: 'none',
  triggeredWithin: 'duration',
  triggeredOlderThan: 'duration',
  notTriggeredWithin: 'duration',
} as const;

/**
 * The operators allowed on each kind of field, in the order a person is offered them, with the
 * value shape each takes there: the one table the segments service validates against and the
 * dashboard's filter builder offers.
 */
export const FIELD_OPERATORS: Readonly<
  Record<FilterFieldKind, Readonly<Partial<Record<FilterOperator, FilterValueShape>>>>
> = {
  email: { equals: 'text', notEquals: 'text', contains: 'text', notContains: 'text' },
  subscribed: { equals: 'boolean', notEquals: 'boolean' },
  date: DATE_OPERATORS,
  data: {
    equals: 'scalar',
    notEquals: 'scalar',
    contains: 'text',
    notContains: 'text',
    greaterThan: 'ordered',
    greaterThanOrEqual: 'ordered',
    lessThan: 'ordered',
    lessThanOrEqual: 'ordered',
    exists: 'none',
    notExists: 'none',
    within: 'duration',
    olderThan: 'duration',
  },
  event: HAPPENED_OPERATORS,
  emailActivity: HAPPENED_OPERATORS,
  segment: { memberOfSegment: 'none', notMemberOfSegment: 'none' },
};

/**
 * Whether `filter` holds a filter object (`{field, operator, value?}`) whose `field` satisfies
 * `matches`, at any depth (groups, nested conditions). Any other JSON is walked as it is.
 */
export function filterReferences(filter: unknown, matches: (field: string) => boolean): boolean {
  if (Array.isArray(filter)) return filter.some((item) => filterReferences(item, matches));
  if (filter === null || typeof filter !== 'object') return false;
  const record = filter as Record<string, unknown>;
  if (typeof record.field === 'string' && matches(record.field)) return true;
  return Object.values(record).some((value) => filterReferences(value, matches));
}
