/**
 * The CONDITION step (API reference, "Workflow step config"): `{field, operator, value?}` over the
 * contact (`contact.<field>`), its data (`data.<key>`) and the execution's context
 * (`event.<key>`, dot paths into nested objects).
 */
import type { ContactViewDocument } from '@stamp/contracts';

import type { ConditionOperator } from '../workflows/steps.ts';

/** A CONDITION step's config. */
export interface Condition {
  field: string;
  operator: ConditionOperator;
  value?: string | number | boolean;
}

const own = (value: unknown, key: string): unknown =>
  typeof value === 'object' && value !== null && Object.hasOwn(value, key)
    ? (value as Record<string, unknown>)[key]
    : undefined;

/** The value `field` names for this contact and context (undefined: absent). */
export function fieldValue(
  field: string,
  contact: ContactViewDocument,
  context: Record<string, unknown>,
): unknown {
  const [root = '', ...path] = field.split('.');
  if (root === 'contact') {
    const name = path[0] ?? '';
    return name === 'id' ? contact._id : own(contact, name);
  }
  if (root === 'data') return own(contact.data, path.join('.'));
  let value: unknown = context;
  for (const key of path) value = own(value, key);
  return value;
}

const comparable = (value: unknown): number | string | undefined => {
  if (typeof value === 'number') return value;
  if (typeof value === 'string') {
    const number = Number(value);
    if (value.trim() !== '' && Number.isFinite(number)) return number;
    const time = Date.parse(value);
    return /^\d{4}-\d{2}-\d{2}/.test(value) && !Number.isNaN(time) ? time : value;
  }
  return undefined;
};

/**
 * Whether the condition holds. `equals` compares strings case-insensitively and numbers by
 * value; the ordering operators compare numbers, ISO dates or strings; `contains` is a
 * case-insensitive substring test of strings and a membership test of arrays.
 */
export function evaluateCondition(
  condition: Condition,
  contact: ContactViewDocument,
  context: Record<string, unknown>,
): boolean {
  const actual = fieldValue(condition.field, contact, context);
  const expected = condition.value;
  const present = actual !== undefined && actual !== null && actual !== '';
  const equal = (): boolean => {
    if (typeof actual === 'string' && typeof expected === 'string') {
      return actual.toLowerCase() === expected.toLowerCase();
    }
    if (typeof actual === 'number' || typeof expected === 'number') {
      return comparable(actual) === comparable(expected);
    }
    return actual === expected;
  };
  const contains = (): boolean => {
    if (Array.isArray(actual)) return actual.some((item) => item === expected);
    return (
      typeof actual === 'string' &&
      typeof expected === 'string' &&
      actual.toLowerCase().includes(expected.toLowerCase())
    );
  };
  const order = (): number | null => {
    const left = comparable(actual);
    const right = comparable(expected);
    if (left === undefined || right === undefined || typeof left !== typeof right) return null;
    return left < right ? -1 : left > right ? 1 : 0;
  };
  switch (condition.operator) {
    case 'exists':
      return present;
    case 'notExists':
      return !present;
    case 'equals':
      return equal();
    case 'notEquals':
      return !equal();
    case 'contains':
      return contains();
    case 'notContains':
      return !contains();
    case 'greaterThan':
      return (order() ?? 0) > 0 && order() !== null;
    case 'lessThan':
      return order() !== null && (order() ?? 0) < 0;
    case 'greaterThanOrEqual':
      return order() !== null && (order() ?? -1) >= 0;
    case 'lessThanOrEqual':
      return order() !== null && (order() ?? 1) <= 0;
  }
}
