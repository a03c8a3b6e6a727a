/**
 * Translation of MongoDB filters and sorts to SQL over the embedded view store's tables
 * (`rid INTEGER PRIMARY KEY, id TEXT UNIQUE, doc TEXT`, the document as JSON). A translation is
 * exact when SQLite answers with exactly the documents MongoDB would; otherwise it is a superset
 * (possibly no condition at all), and the caller tests each row with the filter itself.
 *
 * Exactness rests on the collection's {@link DocumentShape}: a path is compared in SQL only when
 * no array lies on it, and SQL type guards (`json_type`) are added only where the shape shows
 * that a value of another type could compare equal or in range (for example `true` read as 1).
 */
import type { SQLInputValue } from 'node:sqlite';

import { type DocumentShape, isPathKey, TYPE } from './document-shape.ts';
import type { Filter, Sort } from './view-store.ts';

/**
 * A trigram index query that every row matching a condition satisfies: the query can read its
 * rows first (`FROM "<table>"(?) CROSS JOIN …`), so a rare substring costs its matches, not the
 * collection. `rows` estimates how many rows it yields.
 */
export interface SqlDriver {
  table: string;
  query: string;
  rows: number;
  /**
   * The index's table of rows (`rid`, `key` = `_id`, `value` = the text, one column per field
   * given before the text in `createIndex`): a condition on those fields alone is answered from
   * it, without the documents.
   */
  rowsTable?: { name: string; fields: readonly string[]; text: string };
}

/**
 * A SQL condition with its bound values; `exact` when it selects MongoDB's answer; `driver`
 * when a trigram index can read the candidate rows.
 */
export interface SqlCondition {
  sql: string;
  params: SQLInputValue[];
  exact: boolean;
  driver?: SqlDriver;
}

/** What translation needs to know of a collection. */
export interface SqlCollection {
  shape: DocumentShape;
  /** SQL expression of the value at `path` (see {@link fieldExpression}). */
  column(path: string): string;
  /** SQL expression of the JSON type at `path` (see {@link typeExpression}). */
  columnType(path: string): string;
  /**
   * The trigram index query for a substring search of `path`, given the distinct trigrams of
   * the searched text (lowercase): undefined when the path has no substring index.
   */
  substringQuery(path: string, trigrams: readonly string[]): SqlDriver | undefined;
}

const TRUE: SqlCondition = { sql: '1', params: [], exact: true };
const FALSE: SqlCondition = { sql: '0', params: [], exact: true };
/** No condition: every row is a candidate and must be tested. */
const ANY: SqlCondition = { sql: '1', params: [], exact: false };

/** SQL string literal of `text`. */
const literal = (text: string): string => `'${text.replaceAll("'", "''")}'`;

/** Whether every part of the dotted `path` is a key SQLite's JSON path can name. */
export const translatablePath = (path: string): boolean =>
  path === '_id' || path.split('.').every(isPathKey);

/**
 * The SQL expression reading `path` of the row's document: the `id` column for `_id`, else
 * `json_extract(doc, '$."a"."b"')`. Index definitions and queries use this same text, so that
 * SQLite matches them. Call only with a {@link translatablePath}.
 */
export function fieldExpression(path: string, row = 'doc'): string {
  if (path === '_id') return 'id';
  return `json_extract(${row}, ${jsonPathLiteral(path)})`;
}

/** SQL expression of the JSON type at `path` (`'text'`, `'integer'`, …; NULL when missing). */
export function typeExpression(path: string, row = 'doc'): string {
  return `json_type(${row}, ${jsonPathLiteral(path)})`;
}

const jsonPathLiteral = (path: string): string =>
  literal(
    `$${path
      .split('.')
      .map((part) => `."${part}"`)
      .join('')}`,
  );

/** `part` with its driver written back as a condition (`rid IN (…)`), for OR and NOT. */
function inline(part: SqlCondition): SqlCondition {
  const { driver } = part;
  if (driver === undefined) return part;
  const lookup = `rid IN (SELECT rowid FROM "${driver.table}"(?))`;
  return {
    sql: part.sql === '1' ? lookup : `${lookup} AND (${part.sql})`,
    params: [driver.query, ...part.params],
    exact: part.exact,
  };
}

/** Conjunction; the first driver among the parts drives it, the others are inlined. */
const and = (given: SqlCondition[]): SqlCondition => {
  let driver: SqlCondition['driver'];
  const parts = given.map((part) => {
    if (part.driver === undefined) return part;
    if (driver !== undefined) return inline(part);
    driver = part.driver;
    return { ...part, driver: undefined };
  });
  const kept = parts.filter((part) => part.sql !== '1');
  if (kept.some((part) => part.sql === '0' && part.exact)) return FALSE;
  return {
    sql: kept.length === 0 ? '1' : kept.map((part) => `(${part.sql})`).join(' AND '),
    params: kept.flatMap((part) => part.params),
    exact: parts.every((part) => part.exact),
    ...(driver === undefined ? {} : { driver }),
  };
};

const or = (given: SqlCondition[]): SqlCondition => {
  const parts = given.map(inline);
  const exact = parts.every((part) => part.exact);
  if (parts.some((part) => part.sql === '1')) return exact ? TRUE : ANY;
  const kept = parts.filter((part) => part.sql !== '0');
  if (kept.length === 0) return exact ? FALSE : ANY;
  return {
    sql: kept.map((part) => `(${part.sql})`).join(' OR '),
    params: kept.flatMap((part) => part.params),
    exact,
  };
};

/** Negation of an exact condition (SQL NULL counts as false); not translatable otherwise. */
const not = (given: SqlCondition): SqlCondition => {
  const part = inline(given);
  if (!part.exact) return ANY;
  if (part.sql === '1') return FALSE;
  if (part.sql === '0') return TRUE;
  return { sql: `NOT COALESCE((${part.sql}), 0)`, params: part.params, exact: true };
};

type Scalar = string | number | boolean;
const isScalar = (value: unknown): value is Scalar =>
  typeof value === 'string' ||
  (typeof value === 'number' && Number.isFinite(value)) ||
  typeof value === 'boolean';

/** Equality of `path` with a scalar or null, as MongoDB's `{path: value}` (no arrays on it). */
function equals(path: string, value: Scalar | null, collection: SqlCollection): SqlCondition {
  const field = collection.column(path);
  if (path === '_id') {
    return typeof value === 'string'
      ? { sql: `${field} = ?`, params: [value], exact: true }
      : FALSE;
  }
  if (value === null) return { sql: `${field} IS NULL`, params: [], exact: true };
  const mask = collection.shape.mask(path);
  const typeExpression = (): string => collection.columnType(path);
  if (typeof value === 'boolean') {
    const guard = (mask & TYPE.number) === 0 ? '' : ` AND ${typeExpression()} = '${value}'`;
    return { sql: `${field} = ?${guard}`, params: [value ? 1 : 0], exact: true };
  }
  if (typeof value === 'number') {
    // Booleans read as 1 and 0.
    const guarded = (mask & TYPE.boolean) !== 0 && (value === 0 || value === 1);
    const guard = guarded ? ` AND ${typeExpression()} IN ('integer', 'real')` : '';
    return { sql: `${field} = ?${guard}`, params: [value], exact: true };
  }
  // Objects and arrays read as their JSON text, which starts with `{` or `[`.
  const guarded = (mask & (TYPE.object | TYPE.array)) !== 0 && /^[[{]/.test(value);
  const guard = guarded ? ` AND ${typeExpression()} = 'text'` : '';
  return { sql: `${field} = ?${guard}`, params: [value], exact: true };
}

/**
 * `path IN (?, …)` for a non-empty list of strings where equality needs no type guard (`_id`, or
 * a path that never holds objects or arrays): one flat expression, however long the list (an
 * OR of as many equalities would exceed SQLite's expression depth). Undefined otherwise.
 */
function stringList(
  path: string,
  members: readonly unknown[],
  collection: SqlCollection,
): SqlCondition | undefined {
  if (members.length === 0 || !members.every((item) => typeof item === 'string')) return undefined;
  if (path !== '_id' && (collection.shape.mask(path) & (TYPE.object | TYPE.array)) !== 0) {
    return undefined;
  }
  const placeholders = members.map(() => '?').join(', ');
  return {
    sql: `${collection.column(path)} IN (${placeholders})`,
    params: members as string[],
    exact: true,
  };
}

const RANGE: Record<string, string> = { $lt: '<', $lte: '<=', $gt: '>', $gte: '>=' };

/** `$lt`, `$lte`, `$gt`, `$gte` with a string or number: MongoDB compares within the type. */
function range(
  path: string,
  operator: string,
  value: unknown,
  collection: SqlCollection,
): SqlCondition {
  const sign = RANGE[operator] ?? '=';
  const field = collection.column(path);
  if (path === '_id') {
    return typeof value === 'string'
      ? { sql: `${field} ${sign} ?`, params: [value], exact: true }
      : FALSE;
  }
  const mask = collection.shape.mask(path);
  const typeExpression = (): string => collection.columnType(path);
  if (typeof value === 'string') {
    const guard =
      (mask & ~(TYPE.string | TYPE.null)) === 0 ? '' : ` AND ${typeExpression()} = 'text'`;
    return { sql: `${field} ${sign} ?${guard}`, params: [value], exact: true };
  }
  if (typeof value === 'number' && Number.isFinite(value)) {
    const guard =
      (mask & ~(TYPE.number | TYPE.null)) === 0
        ? ''
        : ` AND ${typeExpression()} IN ('integer', 'real')`;
    return { sql: `${field} ${sign} ?${guard}`, params: [value], exact: true };
  }
  return ANY;
}

/**
 * The characters of a regular expression made only of literal characters (metacharacters
 * escaped with `\`), or undefined when it holds another construct.
 */
export function regexLiteral(pattern: string): string | undefined {
  let text = '';
  for (let index = 0; index < pattern.length; index += 1) {
    const char = pattern[index] ?? '';
    if (char === '\\') {
      const next = pattern[index + 1];
      if (next === undefined || /[A-Za-z0-9]/.test(next)) return undefined;
      text += next;
      index += 1;
    } else if ('.^$*+?()[]{}|'.includes(char)) {
      return undefined;
    } else {
      text += char;
    }
  }
  return text;
}

/**
 * The distinct trigrams of `text` (code points, as the trigram tokenizer counts them; a text
 * without surrogate pairs has one per UTF-16 unit, and is sliced without splitting it first).
 */
export function trigramsOf(text: string): string[] {
  const characters = /[\uD800-\uDFFF]/.test(text) ? Array.from(text) : undefined;
  const length = characters?.length ?? text.length;
  const trigrams = new Set<string>();
  for (let index = 0; index + 3 <= length; index += 1) {
    trigrams.add(
      characters === undefined
        ? text.slice(index, index + 3)
        : characters.slice(index, index + 3).join(''),
    );
  }
  return [...trigrams];
}

/**
 * `$regex` (with `$options` of `i`, `m`, `s`): a literal substring is searched with `instr`,
 * through the path's trigram index when it has one (candidates, then the exact test); any
 * other pattern is left to the row test.
 */
function regex(
  path: string,
  pattern: unknown,
  options: unknown,
  collection: SqlCollection,
): SqlCondition {
  if (typeof pattern !== 'string') return ANY;
  const flags = options ?? '';
  if (typeof flags !== 'string' || !/^[ims]*$/.test(flags)) return ANY;
  const text = regexLiteral(pattern);
  if (text === undefined) return ANY;
  const caseless = flags.includes('i');
  // ASCII letters only: JavaScript's and MongoDB's caseless matching agree with SQLite's lower().
  if (caseless && !/^[\x20-\x7e]*$/.test(text)) return ANY;
  const field = collection.column(path);
  const mask = path === '_id' ? TYPE.string : collection.shape.mask(path);
  const guard =
    (mask & ~(TYPE.string | TYPE.null)) === 0 ? '' : ` AND ${collection.columnType(path)} = 'text'`;
  const parts: SqlCondition[] = [];
  // ASCII only: SQLite's trigram tokenizer folds case as JavaScript does for these characters.
  const trigrams = /^[\x20-\x7e]*$/.test(text) ? trigramsOf(text.toLowerCase()) : [];
  const driver = trigrams.length === 0 ? undefined : collection.substringQuery(path, trigrams);
  if (driver !== undefined) parts.push({ sql: '1', params: [], exact: true, driver });
  if (text === '') {
    parts.push({ sql: `${field} IS NOT NULL${guard}`, params: [], exact: true });
  } else {
    const haystack = caseless ? `lower(${field})` : field;
    parts.push({
      sql: `instr(${haystack}, ?) > 0${guard}`,
      params: [caseless ? text.toLowerCase() : text],
      exact: true,
    });
  }
  return and(parts);
}

/** The condition `{path: expected}` of a filter. */
function fieldCondition(path: string, expected: unknown, collection: SqlCollection): SqlCondition {
  const { shape } = collection;
  if (!translatablePath(path) || (path !== '_id' && !shape.plain(path))) return ANY;
  if (expected === null || isScalar(expected)) return equals(path, expected, collection);
  if (typeof expected !== 'object' || Array.isArray(expected) || expected instanceof RegExp) {
    return ANY;
  }
  const operators = expected as Record<string, unknown>;
  const keys = Object.keys(operators);
  // An object without operators is equality with a whole document.
  if (keys.length === 0 || !keys.every((key) => key.startsWith('$'))) return ANY;
  const parts: SqlCondition[] = [];
  for (const operator of keys) {
    const operand = operators[operator];
    switch (operator) {
      case '$eq':
        parts.push(operand === null || isScalar(operand) ? equals(path, operand, collection) : ANY);
        break;
      case '$ne':
        parts.push(
          operand === null || isScalar(operand) ? not(equals(path, operand, collection)) : ANY,
        );
        break;
      case '$lt':
      case '$lte':
      case '$gt':
      case '$gte':
        parts.push(range(path, operator, operand, collection));
        break;
      case '$in':
      case '$nin': {
        const members = Array.isArray(operand) ? (operand as unknown[]) : undefined;
        if (members === undefined || !members.every((item) => item === null || isScalar(item))) {
          parts.push(ANY);
          break;
        }
        const any =
          stringList(path, members, collection) ??
          or(members.map((item) => equals(path, item, collection)));
        parts.push(operator === '$in' ? any : not(any));
        break;
      }
      case '$exists':
        if (typeof operand !== 'boolean') parts.push(ANY);
        else if (path === '_id') parts.push(operand ? TRUE : FALSE);
        else {
          const test = operand ? 'IS NOT NULL' : 'IS NULL';
          parts.push({ sql: `${collection.columnType(path)} ${test}`, params: [], exact: true });
        }
        break;
      case '$regex':
        parts.push(regex(path, operand, operators.$options, collection));
        break;
      case '$options':
        if (!('$regex' in operators)) parts.push(ANY);
        break;
      case '$not':
        parts.push(
          operand !== null && typeof operand === 'object' && !Array.isArray(operand)
            ? not(fieldCondition(path, operand, collection))
            : ANY,
        );
        break;
      default:
        parts.push(ANY);
    }
  }
  return and(parts);
}

/**
 * Translates a MongoDB filter to a SQL condition over the collection's table. Exact when every
 * part was translated exactly; otherwise a superset of the matching rows (`1` at worst).
 */
export function translateFilter(filter: Filter, collection: SqlCollection): SqlCondition {
  const parts: SqlCondition[] = [];
  for (const [key, value] of Object.entries(filter)) {
    if (key === '$and' || key === '$or' || key === '$nor') {
      if (!Array.isArray(value) || value.length === 0) {
        parts.push(ANY);
        continue;
      }
      const children = (value as unknown[]).map((child) =>
        child !== null && typeof child === 'object' && !Array.isArray(child)
          ? translateFilter(child as Filter, collection)
          : ANY,
      );
      if (key === '$and') parts.push(and(children));
      else if (key === '$or') parts.push(or(children));
      else parts.push(not(or(children)));
    } else if (key.startsWith('$')) {
      parts.push(ANY);
    } else {
      parts.push(fieldCondition(key, value, collection));
    }
  }
  return and(parts);
}

/**
 * `ORDER BY` terms giving MongoDB's order for `sort`, ending with `id` so that ties keep one
 * order; undefined when a sort key may hold a value SQLite orders differently (a boolean, an
 * object or an array: MongoDB orders values by type first).
 */
export function translateSort(sort: Sort, shape: DocumentShape): string | undefined {
  const terms: string[] = [];
  for (const [path, direction] of Object.entries(sort)) {
    const order = direction === -1 ? 'DESC' : 'ASC';
    if (path === '_id') {
      terms.push(`id ${order}`);
      return terms.join(', ');
    }
    if (!translatablePath(path) || !shape.plain(path)) return undefined;
    if ((shape.mask(path) & ~(TYPE.string | TYPE.number | TYPE.null)) !== 0) return undefined;
    terms.push(`${fieldExpression(path)} ${order}`);
  }
  terms.push('id ASC');
  return terms.join(', ');
}
