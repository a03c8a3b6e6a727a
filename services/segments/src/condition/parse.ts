/** Validation of conditions given in requests (segment `condition`, campaign `audienceFilter`). */
import { type FieldError, validationError } from '@stamp/http-kit';

import {
  type Condition,
  type ConditionGroup,
  dateSpan,
  FIELD_OPERATORS,
  type Filter,
  type FilterValue,
  MAX_DEPTH,
  MAX_DURATION,
  MAX_FILTERS,
  MAX_GROUPS,
  MAX_TEXT_LENGTH,
  OPERATORS,
  type Operator,
  parseField,
  TIME_UNITS,
  type TimeUnit,
  type ValueShape,
} from './condition.ts';

/** Most field errors reported at once; validation stops there. */
const MAX_ERRORS = 20;

/** Walk state: errors so far and the filters and groups counted. */
interface Walk {
  errors: FieldError[];
  filters: number;
  groups: number;
  /** Set once a limit is exceeded or too many errors were found: the walk stops. */
  stopped: boolean;
}

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

const kindOf = (value: unknown): string =>
  value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;

function report(walk: Walk, field: string, message: string, code: string): void {
  walk.errors.push({ field, message, code });
  if (walk.errors.length >= MAX_ERRORS) walk.stopped = true;
}

/** Reports the keys of `object` other than `allowed`; true when there were none. */
function onlyKeys(walk: Walk, object: Json, allowed: readonly string[], path: string): boolean {
  let clean = true;
  for (const key of Object.keys(object)) {
    if (allowed.includes(key)) continue;
    report(walk, `${path}.${key}`, `Unknown key "${key}"`, 'unrecognized_keys');
    clean = false;
  }
  return clean;
}

/**
 * Validates a condition given in a request and returns it as a new object holding only the
 * known keys (`value` and `unit` given as null are dropped, `-0` becomes `0`).
 *
 * Shape: `{logic: 'AND'|'OR', groups: [{filters: [{field, operator, value?, unit?}],
 * conditions?: <condition>}]}`, at least one group, each group with at least one filter or a
 * nested condition; no other keys. Fields, the operators allowed on each and their values are
 * those of `condition.ts`: text is 1 to 2,000 characters; numbers are finite; dates of
 * `createdAt`/`updatedAt` are `YYYY-MM-DD` (a UTC day) or ISO 8601 timestamps with a zone;
 * durations are whole numbers from 1 to about 100 years' worth of `unit` (`minutes`, `hours` or
 * `days`), which only relative-time operators take. Limits: 5 levels of nested conditions, 100
 * filters and 100 groups in all.
 * @param field path of the condition in errors: `condition` (segments) or `audienceFilter`
 *   (campaigns).
 * @throws ApiError 422 VALIDATION_ERROR whose errors name the exact path of each problem (at most
 *   20), for example `condition.groups.0.filters.1.operator`, with the code `invalid_type`,
 *   `invalid_value`, `unrecognized_keys`, `too_small`, `too_big` or `operator_not_allowed`.
 */
export function parseCondition(input: unknown, field = 'condition'): Condition {
  const walk: Walk = { errors: [], filters: 0, groups: 0, stopped: false };
  const condition = conditionOf(walk, input, field, 1);
  if (walk.errors.length > 0 || condition === undefined) {
    if (walk.errors.length === 0) report(walk, field, 'Invalid condition', 'invalid_type');
    throw validationError(walk.errors);
  }
  return condition;
}

function conditionOf(
  walk: Walk,
  input: unknown,
  path: string,
  depth: number,
): Condition | undefined {
  if (!isObject(input)) {
    report(walk, path, `Expected an object, received ${kindOf(input)}`, 'invalid_type');
    return undefined;
  }
  if (depth > MAX_DEPTH) {
    report(walk, path, `Conditions may be nested at most ${MAX_DEPTH} levels deep`, 'too_big');
    walk.stopped = true;
    return undefined;
  }
  let valid = onlyKeys(walk, input, ['logic', 'groups'], path);
  const { logic, groups } = input;
  if (logic !== 'AND' && logic !== 'OR') {
    report(walk, `${path}.logic`, 'Expected "AND" or "OR"', 'invalid_value');
    valid = false;
  }
  if (!Array.isArray(groups)) {
    report(walk, `${path}.groups`, `Expected an array, received ${kindOf(groups)}`, 'invalid_type');
    return undefined;
  }
  if (groups.length === 0) {
    report(walk, `${path}.groups`, 'A condition needs at least one group', 'too_small');
    return undefined;
  }
  const parsed: ConditionGroup[] = [];
  for (const [index, group] of (groups as unknown[]).entries()) {
    if (walk.stopped) return undefined;
    const groupPath = `${path}.groups.${index}`;
    walk.groups += 1;
    if (walk.groups > MAX_GROUPS) {
      report(walk, groupPath, `A condition may have at most ${MAX_GROUPS} groups`, 'too_big');
      walk.stopped = true;
      return undefined;
    }
    const result = groupOf(walk, group, groupPath, depth);
    if (result === undefined) valid = false;
    else parsed.push(result);
  }
  return valid && !walk.stopped
    ? { logic: logic as Condition['logic'], groups: parsed }
    : undefined;
}

function groupOf(
  walk: Walk,
  input: unknown,
  path: string,
  depth: number,
): ConditionGroup | undefined {
  if (!isObject(input)) {
    report(walk, path, `Expected an object, received ${kindOf(input)}`, 'invalid_type');
    return undefined;
  }
  let valid = onlyKeys(walk, input, ['filters', 'conditions'], path);
  const { filters, conditions } = input;
  if (!Array.isArray(filters)) {
    report(
      walk,
      `${path}.filters`,
      `Expected an array, received ${kindOf(filters)}`,
      'invalid_type',
    );
    return undefined;
  }
  if (filters.length === 0 && conditions === undefined) {
    report(
      walk,
      `${path}.filters`,
      'A group needs at least one filter or a nested condition',
      'too_small',
    );
    return undefined;
  }
  const parsed: Filter[] = [];
  for (const [index, filter] of (filters as unknown[]).entries()) {
    if (walk.stopped) return undefined;
    const filterPath = `${path}.filters.${index}`;
    walk.filters += 1;
    if (walk.filters > MAX_FILTERS) {
      report(walk, filterPath, `A condition may have at most ${MAX_FILTERS} filters`, 'too_big');
      walk.stopped = true;
      return undefined;
    }
    const result = filterOf(walk, filter, filterPath);
    if (result === undefined) valid = false;
    else parsed.push(result);
  }
  let nested: Condition | undefined;
  if (conditions !== undefined) {
    nested = conditionOf(walk, conditions, `${path}.conditions`, depth + 1);
    if (nested === undefined) valid = false;
  }
  if (!valid) return undefined;
  return nested === undefined ? { filters: parsed } : { filters: parsed, conditions: nested };
}

function filterOf(walk: Walk, input: unknown, path: string): Filter | undefined {
  if (!isObject(input)) {
    report(walk, path, `Expected an object, received ${kindOf(input)}`, 'invalid_type');
    return undefined;
  }
  const clean = onlyKeys(walk, input, ['field', 'operator', 'value', 'unit'], path);
  const { field, operator } = input;
  const value = input.value ?? undefined;
  const unit = input.unit ?? undefined;
  if (typeof field !== 'string') {
    report(walk, `${path}.field`, `Expected a string, received ${kindOf(field)}`, 'invalid_type');
    return undefined;
  }
  const ref = parseField(field);
  if (ref === undefined) {
    report(
      walk,
      `${path}.field`,
      `Unknown field "${field.slice(0, 300)}": use email, subscribed, createdAt, updatedAt, ` +
        'data.<key>, event.<name>, email.<sent|delivery|open|click|bounce|complaint> or ' +
        'segment.<id> (keys, names and ids of 1 to 255 characters)',
      'invalid_value',
    );
    return undefined;
  }
  if (typeof operator !== 'string' || !(OPERATORS as readonly string[]).includes(operator)) {
    report(
      walk,
      `${path}.operator`,
      `Unknown operator: use ${OPERATORS.join(', ')}`,
      'invalid_value',
    );
    return undefined;
  }
  const allowed = FIELD_OPERATORS[ref.kind];
  const shape = allowed[operator as Operator];
  if (shape === undefined) {
    report(
      walk,
      `${path}.operator`,
      `Operator ${operator} does not apply to ${field}: use ${Object.keys(allowed).join(', ')}`,
      'operator_not_allowed',
    );
    return undefined;
  }
  const checked = valueOf(walk, shape, value, unit, path, operator);
  if (checked === null || !clean) return undefined;
  return { field, operator: operator as Operator, ...checked };
}

/** The `value` and `unit` of a filter whose operator takes `shape`, or null (reported). */
function valueOf(
  walk: Walk,
  shape: ValueShape,
  value: unknown,
  unit: unknown,
  path: string,
  operator: string,
): { value?: FilterValue; unit?: TimeUnit } | null {
  const valuePath = `${path}.value`;
  if (shape !== 'duration' && unit !== undefined) {
    report(
      walk,
      `${path}.unit`,
      `Operator ${operator} takes no unit (only within, olderThan, triggeredWithin, ` +
        'triggeredOlderThan and notTriggeredWithin do)',
      'unrecognized_keys',
    );
    return null;
  }
  if (shape === 'none') {
    if (value === undefined) return {};
    report(walk, valuePath, `Operator ${operator} takes no value`, 'unrecognized_keys');
    return null;
  }
  if (value === undefined) {
    report(walk, valuePath, `Operator ${operator} requires a value`, 'invalid_type');
    return null;
  }
  const expected = (what: string): null => {
    report(walk, valuePath, `Expected ${what}, received ${kindOf(value)}`, 'invalid_type');
    return null;
  };
  const text = (): { value: string } | null => {
    if (typeof value !== 'string') return expected('a string');
    if (value.length === 0 || value.length > MAX_TEXT_LENGTH) {
      report(
        walk,
        valuePath,
        `Text values have 1 to ${MAX_TEXT_LENGTH} characters`,
        value.length === 0 ? 'too_small' : 'too_big',
      );
      return null;
    }
    return { value };
  };
  const number = (): { value: number } | null => {
    if (typeof value !== 'number' || !Number.isFinite(value)) return expected('a finite number');
    // -0 and 0 are one value (MongoDB), two for strict equality in JavaScript.
    return { value: value === 0 ? 0 : value };
  };
  switch (shape) {
    case 'text':
      return text();
    case 'boolean':
      return typeof value === 'boolean' ? { value } : expected('a boolean');
    case 'scalar':
      if (typeof value === 'boolean') return { value };
      return typeof value === 'number'
        ? number()
        : typeof value === 'string'
          ? text()
          : expected('a string, number or boolean');
    case 'ordered':
      return typeof value === 'number'
        ? number()
        : typeof value === 'string'
          ? text()
          : expected('a string or number');
    case 'date': {
      if (typeof value !== 'string') return expected('a date string');
      if (dateSpan(value) === undefined) {
        report(
          walk,
          valuePath,
          'Expected a date YYYY-MM-DD or an ISO 8601 timestamp with a zone ' +
            '(2025-01-31T09:30:00Z), years 0000 to 9999',
          'invalid_value',
        );
        return null;
      }
      return { value };
    }
    case 'duration': {
      if (unit === undefined) {
        report(
          walk,
          `${path}.unit`,
          `Operator ${operator} requires a unit: minutes, hours or days`,
          'invalid_type',
        );
        return null;
      }
      if (typeof unit !== 'string' || !(TIME_UNITS as readonly string[]).includes(unit)) {
        report(walk, `${path}.unit`, 'Expected "minutes", "hours" or "days"', 'invalid_value');
        return null;
      }
      const limit = MAX_DURATION[unit as TimeUnit];
      if (typeof value !== 'number' || !Number.isInteger(value)) return expected('a whole number');
      if (value < 1 || value > limit) {
        report(
          walk,
          valuePath,
          `Durations in ${unit} are 1 to ${limit}`,
          value < 1 ? 'too_small' : 'too_big',
        );
        return null;
      }
      return { value, unit: unit as TimeUnit };
    }
  }
}
