/**
 * CSV files of contact imports (spec part 4, POST /contacts/import), as pure functions: the file
 * is read into a header and rows with the line where each row starts; a row that cannot be read
 * becomes an error row instead of stopping the import. The header maps `email` and `subscribed`
 * (case-insensitive) and every other named column to contact data.
 */
import { type FieldError, validationError } from '@stamp/http-kit';
import { finished } from 'node:stream/promises';

import { parse } from 'csv-parse';

import { MAX_DATA_KEYS, MAX_KEY_LENGTH } from '../contacts/data.ts';
import type { ImportRow } from './events.ts';

/** Bytes of the file parsed between two yields to the event loop (a 5 MB file: 80 slices). */
const PARSE_SLICE_BYTES = 64 * 1024;

/** Largest accepted CSV upload, bytes (spec part 8: 5 MB). */
export const MAX_IMPORT_BYTES = 5 * 1024 * 1024;

/** A CSV file read by {@link parseContactsCsv}. */
export interface ParsedCsv {
  /** Header names, trimmed. */
  columns: string[];
  /** Records after the header in file order; blank records are left out. */
  rows: ImportRow[];
}

/** Where the header puts a row's email, subscription and data values. */
export interface ImportHeader {
  emailIndex: number;
  /** -1 when the file has no `subscribed` column. */
  subscribedIndex: number;
  /** Data keys (header names) and their column index. */
  data: [key: string, index: number][];
}

/** A row read as a contact, or the reason it cannot be imported. */
export type ImportContact =
  | { email: string; subscribed: boolean | undefined; data: Record<string, string> }
  | { email?: string; error: string };

const fileError = (message: string, code = 'invalid_file'): FieldError => ({
  field: 'file',
  message,
  code,
});

/** The delimiter of the header line: the most frequent of `,` `;` and tab (`,` on a tie). */
function detectDelimiter(content: Buffer): string {
  const end = content.indexOf(0x0a);
  const first = content.subarray(0, end === -1 ? Math.min(content.length, 65_536) : end);
  let best = ',';
  let bestCount = 0;
  for (const delimiter of [',', ';', '\t']) {
    const count = first.toString('utf8').split(delimiter).length - 1;
    if (count > bestCount) {
      best = delimiter;
      bestCount = count;
    }
  }
  return best;
}

/** Byte offsets of every line feed, for line numbers of byte offsets. */
function lineFeeds(content: Buffer): Int32Array {
  let count = 0;
  for (let index = content.indexOf(0x0a); index !== -1; index = content.indexOf(0x0a, index + 1)) {
    count++;
  }
  const feeds = new Int32Array(count);
  let at = 0;
  for (let index = content.indexOf(0x0a); index !== -1; index = content.indexOf(0x0a, index + 1)) {
    feeds[at++] = index;
  }
  return feeds;
}

/** 1-based line of byte `offset`: one more than the line feeds before it. */
function lineAt(feeds: Int32Array, offset: number): number {
  let low = 0;
  let high = feeds.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((feeds[middle] ?? 0) < offset) low = middle + 1;
    else high = middle;
  }
  return low + 1;
}

/**
 * Reads a CSV upload (UTF-8, optional BOM; delimiter `,`, `;` or tab as found in the header line;
 * RFC 4180 quoting with `""` escapes and line breaks inside quotes; stray quotes kept as text).
 * Values are trimmed; blank records are skipped. A record with another number of fields than the
 * header becomes an error row, as does an unclosed quote at the end of the file (which takes the
 * rest of the file). Lines are numbered from 1 (the header) by line feeds in the file.
 * @throws ApiError 422 VALIDATION_ERROR (field `file`) for an empty file, a file without rows, a
 *   header without an `email` column, duplicate or too long column names, or more than 100
 *   data columns.
 */
export async function parseContactsCsv(content: Buffer): Promise<ParsedCsv> {
  const feeds = lineFeeds(content);
  const records: { values: string[]; start: number }[] = [];
  let end = 0;
  let unreadable: string | undefined;
  const parser = parse({
    bom: true,
    delimiter: detectDelimiter(content),
    relax_quotes: true,
    relax_column_count: true,
    skip_empty_lines: true,
    skip_records_with_error: true,
    on_skip: (error) => {
      unreadable ??=
        error?.code === 'CSV_QUOTE_NOT_CLOSED'
          ? 'Unclosed quoted field: the rest of the file from this line could not be read'
          : 'Unreadable record';
      return undefined;
    },
    on_record: (record: string[], context) => {
      records.push({ values: record, start: end });
      end = context.bytes;
      return null;
    },
  });
  parser.resume();
  // The file is parsed a slice at a time, yielding to other requests between slices.
  for (let offset = 0; offset < content.length; offset += PARSE_SLICE_BYTES) {
    parser.write(content.subarray(offset, offset + PARSE_SLICE_BYTES));
    await new Promise((resolve) => setImmediate(resolve));
  }
  parser.end();
  await finished(parser);
  const startLine = (offset: number): number => {
    let at = offset;
    while (at < content.length && (content[at] === 0x0a || content[at] === 0x0d)) at++;
    return lineAt(feeds, at);
  };

  const header = records.shift();
  if (header === undefined) throw validationError([fileError('The CSV file is empty')]);
  const columns = header.values.map((name) => name.trim());
  readHeader(columns);
  const rows: ImportRow[] = [];
  for (const record of records) {
    const values = record.values.map((value) => value.trim());
    if (values.every((value) => value === '')) continue;
    const line = startLine(record.start);
    if (values.length !== columns.length) {
      rows.push({
        line,
        error: `Expected ${columns.length} columns, found ${values.length}`,
      });
    } else {
      rows.push({ line, values });
    }
  }
  if (unreadable !== undefined) rows.push({ line: startLine(end), error: unreadable });
  if (rows.length === 0) throw validationError([fileError('The CSV file has no rows')]);
  return { columns, rows };
}

/**
 * The roles of the header's columns: `email` and `subscribed` (case-insensitive), every other
 * named column is a data key; unnamed columns are ignored.
 * @throws ApiError 422 VALIDATION_ERROR (field `file`) for a header without an `email` column,
 *   a repeated column name, a name longer than 255 characters or more than 100 data columns.
 */
export function readHeader(columns: readonly string[]): ImportHeader {
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  const header: ImportHeader = { emailIndex: -1, subscribedIndex: -1, data: [] };
  columns.forEach((name, index) => {
    if (name === '') return;
    const lower = name.toLowerCase();
    const key = lower === 'email' || lower === 'subscribed' ? lower : name;
    if (seen.has(key)) {
      errors.push(fileError(`The column "${name}" appears more than once`, 'duplicate_column'));
      return;
    }
    seen.add(key);
    if (key === 'email') header.emailIndex = index;
    else if (key === 'subscribed') header.subscribedIndex = index;
    else if (name.length > MAX_KEY_LENGTH) {
      errors.push(
        fileError(`Column names may have at most ${MAX_KEY_LENGTH} characters`, 'too_big'),
      );
    } else header.data.push([name, index]);
  });
  if (header.emailIndex === -1) {
    errors.unshift(fileError('The CSV header has no "email" column', 'missing_column'));
  }
  if (header.data.length > MAX_DATA_KEYS) {
    errors.push(fileError(`At most ${MAX_DATA_KEYS} data columns are accepted`, 'too_big'));
  }
  if (errors.length > 0) throw validationError(errors);
  return header;
}

const TRUE_VALUES = new Set(['true', 'yes', 'y', '1', 'subscribed']);
const FALSE_VALUES = new Set(['false', 'no', 'n', '0', 'unsubscribed']);

/**
 * A `subscribed` cell: true (`true`, `yes`, `y`, `1`, `subscribed`), false (`false`, `no`, `n`,
 * `0`, `unsubscribed`), case-insensitive; undefined when empty (a new contact is then
 * subscribed, an existing one keeps its state); null when it is none of these.
 */
export function parseSubscribed(value: string): boolean | undefined | null {
  const lower = value.trim().toLowerCase();
  if (lower === '') return undefined;
  if (TRUE_VALUES.has(lower)) return true;
  if (FALSE_VALUES.has(lower)) return false;
  return null;
}

/**
 * Reads one row as a contact: its email (as written; the contact commands normalise and validate
 * it), its subscription cell, and its non-empty data cells as strings (the data rules of spec
 * part 2 then apply: reserved keys are dropped). Gives the reason instead for a missing email or
 * an invalid subscription value.
 */
export function importContact(header: ImportHeader, values: readonly string[]): ImportContact {
  const email = values[header.emailIndex] ?? '';
  if (email === '') return { error: 'Missing email' };
  let subscribed: boolean | undefined;
  if (header.subscribedIndex !== -1) {
    const cell = values[header.subscribedIndex] ?? '';
    const parsed = parseSubscribed(cell);
    if (parsed === null) {
      const shown = cell.length > 40 ? `${cell.slice(0, 40)}…` : cell;
      return { email, error: `Invalid subscribed value "${shown}" (use true or false)` };
    }
    subscribed = parsed;
  }
  const data: Record<string, string> = {};
  for (const [key, index] of header.data) {
    const value = values[index] ?? '';
    if (value !== '') data[key] = value;
  }
  return { email, subscribed, data };
}
