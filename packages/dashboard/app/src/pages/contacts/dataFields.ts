/**
 * A contact's custom data as rows of a form (name, type, value) and back: the object of
 * `POST /contacts`, and the patch of `PATCH /contacts/:id` (changed keys with their value,
 * removed keys as null: spec part 2, "Rules for writing contact data").
 */
import type { Schema } from '../../api/client';

/** A contact's custom data. */
export type ContactData = Schema<'Contact'>['data'];

/** The kind of a data value. */
export type FieldType = 'text' | 'number' | 'boolean';

/** One data field being edited. */
export interface FieldRow {
  /** A key of the row in the form (not sent). */
  id: string;
  name: string;
  type: FieldType;
  /** The value as typed; `true` or `false` for a boolean. */
  value: string;
}

/** Problems of the rows, by row id, found before anything is sent. */
export type RowProblems = Record<string, { name?: string; value?: string }>;

let nextRow = 0;

/** A new row. */
export function newRow(name = '', type: FieldType = 'text', value = ''): FieldRow {
  nextRow += 1;
  return { id: `field-${nextRow}`, name, type, value };
}

/** The rows of a contact's data, by name. */
export function rowsFromData(data: ContactData): FieldRow[] {
  return Object.entries(data)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, value]) =>
      typeof value === 'boolean'
        ? newRow(name, 'boolean', String(value))
        : typeof value === 'number'
          ? newRow(name, 'number', String(value))
          : newRow(name, 'text', value),
    );
}

/**
 * The data of the rows, or the problems that stop it: a missing or repeated name, a number that
 * is not one. Rows with neither a name nor a value are left out.
 */
export function dataFromRows(
  rows: readonly FieldRow[],
): { data: ContactData; problems: null } | { data: null; problems: RowProblems } {
  const data: ContactData = {};
  const problems: RowProblems = {};
  for (const row of rows) {
    const name = row.name.trim();
    if (name === '' && row.value.trim() === '') continue;
    if (name === '') {
      problems[row.id] = { name: 'Give the field a name' };
      continue;
    }
    if (Object.hasOwn(data, name)) {
      problems[row.id] = { name: 'Another field has this name' };
      continue;
    }
    if (row.type === 'number') {
      const number = Number(row.value.trim());
      if (row.value.trim() === '' || !Number.isFinite(number)) {
        problems[row.id] = { value: 'Enter a number, for example 42 or 9.5' };
        continue;
      }
      data[name] = number;
    } else if (row.type === 'boolean') {
      data[name] = row.value === 'true';
    } else {
      data[name] = row.value;
    }
  }
  return Object.keys(problems).length === 0 ? { data, problems: null } : { data: null, problems };
}

/** The patch turning `before` into `after`: changed and new keys, and removed keys as null. */
export function dataPatch(
  before: ContactData,
  after: ContactData,
): Record<string, string | number | boolean | null> {
  const patch: Record<string, string | number | boolean | null> = {};
  for (const [name, value] of Object.entries(after)) {
    if (before[name] !== value) patch[name] = value;
  }
  for (const name of Object.keys(before)) {
    if (!Object.hasOwn(after, name)) patch[name] = null;
  }
  return patch;
}
