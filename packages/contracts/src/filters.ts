/**
 * Reading the filter language (API reference, "Filter language") of segment conditions, campaign
 * audience filters and workflow CONDITION steps without evaluating it.
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
