import type { SQLInputValue, StatementSync } from 'node:sqlite';

import type { AnyObject } from 'mingo/types';

import { BoundedCache } from '../bounded-cache.ts';
import { DocumentShape, TYPE } from './document-shape.ts';
import { mingoQuery, mingoUpdater } from './mingo.ts';
import { compileFilter, compileSort, UnsortableError } from './simple-filter.ts';
import { applySimpleUpdate } from './simple-update.ts';
import {
  fieldExpression,
  type SqlCollection,
  type SqlCondition,
  type SqlDriver,
  translatablePath,
  translateFilter,
  trigramsOf,
  translateSort,
  typeExpression,
} from './sql-filter.ts';
import type { SqliteViewStore } from './sqlite-view-store.ts';
import {
  type BulkOperation,
  DuplicateKeyError,
  type Filter,
  type FindOptions,
  type IndexKeys,
  type IndexOptions,
  type Update,
  type UpdateResult,
  type ViewCollection,
  type ViewDocument,
} from './view-store.ts';

/**
 * Values read to estimate how common each trigram of a substring index is: runs of
 * {@link TRIGRAM_SAMPLE_RUN} consecutive rows from random places, so a run costs about one page
 * read (1,024 single rows took 76 ms where their pages were not cached, at 1,000,000 rows).
 */
const TRIGRAM_SAMPLE_RUNS = 64;
const TRIGRAM_SAMPLE_RUN = 16;
/** A trigram in fewer sampled values than this fraction narrows a search enough to add it. */
const RARE_TRIGRAM = 0.05;
/** Trigrams queried at most: each one more costs a pass over its index entries. */
const MAX_TRIGRAMS = 3;
/**
 * Largest estimated number of candidate rows a sorted page reads in one pass (sorting them and
 * counting the filter on the way); above it, a page walks the sort's index and stops early.
 */
const ONE_PASS_ROWS = 50_000;
/** Counts of recent filters kept current by every write, per collection. */
const COUNT_CACHE_SIZE = 32;
/** Results of recent queries kept per collection (see `cachedQuery`). */
const RESULT_CACHE_SIZE = 64;
/** Largest result kept: documents, and characters of their JSON. */
const RESULT_CACHE_DOCUMENTS = 16;
const RESULT_CACHE_CHARACTERS = 16_384;
/** Rows read per batch by writes that select by filter (`updateMany`, `deleteMany`). */
const WRITE_BATCH = 256;
/** SQLite's extended result code of a UNIQUE constraint failure. */
const SQLITE_CONSTRAINT_UNIQUE = 2067;

type Test = (document: unknown) => boolean;

/** A count of a filter kept current by every write (see `countDocuments`). */
interface CachedCount {
  count: number;
  test: Test;
}

/** Statements of a collection's hot paths (reads by id, writes, trigram index upkeep). */
interface Prepared {
  byId: StatementSync;
  byRid: StatementSync;
  upsert: StatementSync;
  removeById: StatementSync;
  removeByRid: StatementSync;
  /**
   * Per substring index its text, the text's JSON type and its fields, then (by id) `rid`:
   * read by id before a write and by rid after it.
   */
  valuesById?: StatementSync;
  valuesByRid?: StatementSync;
  /** Per substring index: its values' width in `values…`, its FTS5 and rows writes. */
  substring: {
    width: number;
    insert: StatementSync;
    remove: StatementSync;
    insertRow: StatementSync;
    removeRow: StatementSync;
  }[];
}

/** A substring index: its FTS5 table, its rows table, the fields stored before the text. */
interface SubstringIndex {
  table: string;
  rows: string;
  fields: readonly string[];
}

/** SQL identifier (double-quoted) of `name`. */
export const quoteIdentifier = (name: string): string => `"${name.replaceAll('"', '""')}"`;

/** Name of the table of collection `name`. */
export const tableName = (name: string): string => `view:${name}`;

const scalar = (value: unknown): boolean =>
  typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';

const isUniqueViolation = (error: unknown): boolean =>
  (error as { errcode?: unknown }).errcode === SQLITE_CONSTRAINT_UNIQUE;

/** Value at the dotted `path` of `document` (own properties only), undefined across arrays. */
function fieldValue(document: Record<string, unknown>, path: string): unknown {
  let current: unknown = document;
  for (const part of path.split('.')) {
    if (current === null || typeof current !== 'object' || Array.isArray(current)) return undefined;
    if (!Object.hasOwn(current, part)) return undefined;
    current = (current as Record<string, unknown>)[part];
  }
  return current;
}

/** The ids of a filter that is exactly `{_id: {$in: [strings]}}`, else undefined. */
function idList(filter: Filter): string[] | undefined {
  const keys = Object.keys(filter);
  if (keys.length !== 1 || keys[0] !== '_id') return undefined;
  const condition = filter._id;
  if (condition === null || typeof condition !== 'object' || Array.isArray(condition)) {
    return undefined;
  }
  const operators = Object.keys(condition);
  const members = (condition as { $in?: unknown }).$in;
  if (operators.length !== 1 || !Array.isArray(members)) return undefined;
  return members.every((member) => typeof member === 'string') ? members : undefined;
}

/**
 * The cache key of a query: the JSON of `parts` (its filter and options), or undefined when
 * they hold a value JSON does not tell apart (a RegExp, a Date, an undefined member).
 */
function queryKey(parts: unknown): string | undefined {
  let plain = true;
  const key = JSON.stringify(parts, (_, value: unknown) => {
    if (value === undefined) plain = false;
    else if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
      if (Object.getPrototypeOf(value) !== Object.prototype) plain = false;
    }
    return value;
  });
  return plain ? key : undefined;
}

/** Sorts `documents` in MongoDB's order (by type, then value), in place where it can. */
function sortDocuments(documents: ViewDocument[], sort: Record<string, 1 | -1>): ViewDocument[] {
  try {
    return documents.sort(compileSort(sort));
  } catch (error) {
    if (!(error instanceof UnsortableError)) throw error;
    return new (mingoQuery().Query)({}, {}).find<ViewDocument>(documents).sort(sort).all();
  }
}

/**
 * One collection of {@link SqliteViewStore}: table `view:<name>`, its expression indexes
 * (`view:<name>:<fields>`) and substring indexes (FTS5 table `view:<name>:substring:<path>` and
 * its rows table `…:rows`, kept current by {@link SqliteViewCollection.write}). See the store for
 * the design.
 */
export class SqliteViewCollection implements ViewCollection, SqlCollection {
  readonly name: string;
  private readonly store: SqliteViewStore;
  private readonly table: string;
  shape = new DocumentShape();
  private ready = false;
  /** Whether a unique secondary index exists: writes then go through at once. */
  private unique = false;
  /** Substring indexes by text path: FTS5 table, rows table, fields stored before the text. */
  private readonly substringIndexes = new Map<string, SubstringIndex>();
  /** Sampled trigram frequencies per substring index, with the write count they were taken at. */
  private readonly trigramStatistics = new Map<
    string,
    { frequencies: Map<string, number>; samples: number; rows: number; writes: number }
  >();
  /** Writes so far (puts and removals), to know when statistics are old. */
  private writes = 0;
  /**
   * Ids that {@link readByIds} found absent, until the end of this turn of the event loop: an
   * insert that follows the read of its batch needs no second lookup.
   */
  private readonly absent = new Set<string>();
  /**
   * Documents (as stored JSON) that {@link readByIds} found, until the end of this turn of the
   * event loop or their next write: the updates of a batch that read its documents at once read
   * none again.
   */
  private readonly prefetched = new Map<string, string>();
  /** Statements of the hot paths, prepared once the table and its indexes are known. */
  private prepared: Prepared | undefined;
  private readonly counts = new BoundedCache<string, CachedCount>(COUNT_CACHE_SIZE);
  /** Moves with every change of the collection's documents (and when it is reloaded). */
  private version = 0;
  /** {@link version} at the last query: a collection unchanged between two queries caches. */
  private queriedVersion = -1;
  /** {@link version} at the last {@link keptById}: the same rule for reads by `_id`. */
  private keptVersion = -1;
  /** Results of recent queries (as JSON) and the {@link version} they were read at. */
  private readonly results = new BoundedCache<string, { version: number; json: string }>(
    RESULT_CACHE_SIZE,
  );

  constructor(name: string, store: SqliteViewStore) {
    this.name = name;
    this.store = store;
    this.table = quoteIdentifier(tableName(name));
  }

  /** Creates the table when missing and loads what is known of it. */
  private ensure(): void {
    if (this.ready) return;
    this.store.exec(`CREATE TABLE IF NOT EXISTS ${this.table} (
      rid INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, doc TEXT NOT NULL)`);
    this.load();
    this.ready = true;
  }

  /** The statements of the hot paths (see {@link Prepared}). */
  private statements(): Prepared {
    if (this.prepared !== undefined) return this.prepared;
    const { db } = this.store;
    const indexes = [...this.substringIndexes.entries()];
    /** Per index: the text, its JSON type, then the fields stored beside it. */
    const values = indexes
      .map(([path, { fields }]) =>
        [
          fieldExpression(path),
          typeExpression(path),
          ...fields.map((f) => fieldExpression(f)),
        ].join(', '),
      )
      .join(', ');
    const arrays = (statement: StatementSync): StatementSync => {
      statement.setReturnArrays(true);
      return statement;
    };
    this.prepared = {
      byId: db.prepare(`SELECT doc FROM ${this.table} WHERE id = ?`),
      upsert: db.prepare(
        `INSERT INTO ${this.table} (id, doc) VALUES (?, ?) ON CONFLICT (id) DO UPDATE SET doc = excluded.doc`,
      ),
      removeById: db.prepare(`DELETE FROM ${this.table} WHERE id = ?`),
      removeByRid: db.prepare(`DELETE FROM ${this.table} WHERE rid = ?`),
      byRid: db.prepare(`SELECT doc FROM ${this.table} WHERE rid = ?`),
      ...(indexes.length === 0
        ? {}
        : {
            valuesById: arrays(db.prepare(`SELECT ${values}, rid FROM ${this.table} WHERE id = ?`)),
            valuesByRid: arrays(db.prepare(`SELECT ${values} FROM ${this.table} WHERE rid = ?`)),
          }),
      substring: indexes.map(([, index]) => {
        const fts = quoteIdentifier(index.table);
        const rows = quoteIdentifier(index.rows);
        const marks = index.fields.map(() => ', ?').join('');
        return {
          width: 2 + index.fields.length,
          insert: db.prepare(`INSERT INTO ${fts} (rowid, value) VALUES (?, ?)`),
          remove: db.prepare(`DELETE FROM ${fts} WHERE rowid = ?`),
          insertRow: db.prepare(`INSERT INTO ${rows} VALUES (?, ?, ?${marks})`),
          removeRow: db.prepare(`DELETE FROM ${rows} WHERE rid = ?`),
        };
      }),
    };
    return this.prepared;
  }

  /** (Re)reads the shape and the index definitions from the database. */
  private load(): void {
    this.prepared = undefined;
    this.shape = this.store.loadShape(this.name);
    const table = tableName(this.name);
    const unique = this.store
      .statement(
        "SELECT 1 AS found FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql LIKE 'CREATE UNIQUE INDEX%'",
      )
      .get(table);
    this.unique = unique !== undefined;
    this.substringIndexes.clear();
    const prefix = `${table}:substring:`;
    const indexes = this.store
      .statement(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL TABLE%' AND substr(name, 1, ?) = ?",
      )
      .all(prefix.length, prefix) as { name: string }[];
    for (const { name } of indexes) {
      const rows = `${name}:rows`;
      const columns = this.store.db
        .prepare(`PRAGMA table_info(${quoteIdentifier(rows)})`)
        .all() as {
        name: string;
      }[];
      this.substringIndexes.set(name.slice(prefix.length), {
        table: name,
        rows,
        fields: columns.slice(3).map((column) => column.name),
      });
    }
  }

  /** Forgets everything known of the table (after a drop). */
  reset(): void {
    this.version += 1;
    this.results.clear();
    this.absent.clear();
    this.prefetched.clear();
    this.ready = false;
    this.shape = new DocumentShape();
    this.unique = false;
    this.substringIndexes.clear();
    this.trigramStatistics.clear();
    this.counts.clear();
    this.prepared = undefined;
  }

  /**
   * The trigram index query of a substring search: the rarest of `trigrams` by the sampled
   * frequencies of the index (all of them are in every match, so any subset selects a superset
   * of the matches; rare ones select fewest), with the estimated number of rows it yields.
   */
  substringQuery(path: string, trigrams: readonly string[]): SqlDriver | undefined {
    const index = this.substringIndexes.get(path);
    if (index === undefined) return undefined;
    const statistics = this.trigramStatisticsOf(path, index);
    const ranked = [...trigrams].sort(
      (a, b) =>
        (statistics.frequencies.get(a) ?? 0) - (statistics.frequencies.get(b) ?? 0) ||
        (a < b ? -1 : 1),
    );
    const share = (trigram: string): number =>
      statistics.samples === 0
        ? 0
        : (statistics.frequencies.get(trigram) ?? 0) / statistics.samples;
    const chosen = ranked.slice(0, 1);
    for (const trigram of ranked.slice(1, MAX_TRIGRAMS)) {
      if (share(trigram) < RARE_TRIGRAM) chosen.push(trigram);
    }
    const rarest = chosen[0] === undefined ? 1 : share(chosen[0]);
    return {
      table: index.table,
      query: chosen.map((trigram) => `"${trigram.replaceAll('"', '""')}"`).join(' '),
      rows: Math.ceil(Math.max(rarest, 1 / (statistics.samples + 1)) * statistics.rows),
      rowsTable: { name: index.rows, fields: index.fields, text: path },
    };
  }

  column(path: string): string {
    return fieldExpression(path);
  }

  columnType(path: string): string {
    return typeExpression(path);
  }

  /**
   * Trigram frequencies among up to 1,024 values of `path` ({@link TRIGRAM_SAMPLE_RUNS} runs)
   * read at random places of its index's rows table (about 110 bytes a row, where a document
   * takes hundreds: fewer pages, and the ones a search reads next), taken again once the
   * collection has seen as many writes as it had rows.
   */
  private trigramStatisticsOf(
    path: string,
    index: SubstringIndex,
  ): {
    frequencies: Map<string, number>;
    samples: number;
    rows: number;
  } {
    const known = this.trigramStatistics.get(path);
    if (known !== undefined && this.writes - known.writes < Math.max(1000, known.rows)) {
      return known;
    }
    const rows = quoteIdentifier(index.rows);
    const { last } = this.store
      .statement(`SELECT coalesce(max(rid), 0) AS last FROM ${rows}`)
      .get() as { last: number };
    const probe = this.store.statement(
      `SELECT value FROM ${rows} WHERE rid >= ? ORDER BY rid LIMIT ${TRIGRAM_SAMPLE_RUN}`,
    );
    const frequencies = new Map<string, number>();
    let samples = 0;
    for (let run = 0; last > 0 && run < TRIGRAM_SAMPLE_RUNS; run += 1) {
      const found = probe.all(1 + Math.floor(Math.random() * last)) as { value: unknown }[];
      for (const { value } of found) {
        if (typeof value !== 'string') continue;
        samples += 1;
        for (const trigram of trigramsOf(value.toLowerCase())) {
          frequencies.set(trigram, (frequencies.get(trigram) ?? 0) + 1);
        }
      }
    }
    const statistics = { frequencies, samples, rows: last, writes: this.writes };
    this.trigramStatistics.set(path, statistics);
    return statistics;
  }

  /**
   * Writes one document (`json`) or removes it (null) inside the caller's transaction, keeping
   * its trigram indexes current (explicit writes: an FTS5 write from a trigger costs several
   * times more).
   */
  write(id: string, json: string | null): void {
    const statements = this.statements();
    const { valuesById, valuesByRid, substring } = statements;
    if (valuesById === undefined || valuesByRid === undefined) {
      if (json === null) statements.removeById.run(id);
      else statements.upsert.run(id, json);
      return;
    }
    const before = valuesById.get(id) as SQLInputValue[] | undefined;
    const width = substring.reduce((sum, index) => sum + index.width, 0);
    let rid = before?.[width] ?? null;
    let after: SQLInputValue[] | undefined;
    if (json === null) {
      if (rid !== null) statements.removeByRid.run(rid);
    } else {
      const { lastInsertRowid } = statements.upsert.run(id, json);
      rid ??= lastInsertRowid;
      after = valuesByRid.get(rid) as SQLInputValue[] | undefined;
    }
    let at = 0;
    for (const index of substring) {
      const old = before?.slice(at, at + index.width) ?? [];
      const next = after?.slice(at, at + index.width) ?? [];
      at += index.width;
      if (old.length === next.length && old.every((value, place) => value === next[place])) {
        continue;
      }
      if (old[1] === 'text') {
        index.remove.run(rid);
        index.removeRow.run(rid);
      }
      if (next[1] === 'text') {
        index.insert.run(rid, next[0] ?? null);
        index.insertRow.run(
          rid,
          id,
          next[0] ?? null,
          ...next.slice(2).map((value) => value ?? null),
        );
      }
    }
  }

  /**
   * Before a query SQL answers: this collection's held changes written (other collections' stay
   * held: a query reads one collection), state of other processes seen.
   */
  private prepareRead(): void {
    this.ensure();
    if (!this.store.seeOtherConnections()) this.store.flushHeld(this);
  }

  /** Called by the store when another connection committed: cached state may be stale. */
  reload(): void {
    this.version += 1;
    this.results.clear();
    this.absent.clear();
    this.prefetched.clear();
    if (!this.ready) return;
    this.load();
    this.counts.clear();
  }

  /**
   * The stored document `id` (held changes first, then what {@link readByIds} read in this turn
   * of the event loop), parsed: a copy the caller owns. With `keep` (the reads of callers:
   * `findOne`, `find` by `_id`), a read-mostly collection (unchanged since its previous kept
   * read) keeps the stored JSON of recent reads, found or not, until its next change or a commit
   * of another connection, as {@link cachedQuery} keeps query results: the API key every request
   * resolves then costs no SQL (under `POST /v1/track` its look-up took 5.4% of the event loop,
   * now 2.1%).
   */
  private readById(id: string, keep = false): ViewDocument | null {
    this.ensure();
    const held = this.store.held(this, id);
    if (held !== undefined) return held === null ? null : (JSON.parse(held) as ViewDocument);
    if (this.absent.has(id)) return null;
    const prefetched = this.prefetched.get(id);
    if (prefetched !== undefined) return JSON.parse(prefetched) as ViewDocument;
    const json = keep ? this.keptById(id) : this.storedById(id);
    return json === undefined ? null : (JSON.parse(json) as ViewDocument);
  }

  /** The stored JSON of document `id`, read from SQL. */
  private storedById(id: string): string | undefined {
    return (this.statements().byId.get(id) as { doc: string } | undefined)?.doc;
  }

  /** {@link storedById} kept for a read-mostly collection (see {@link readById}). */
  private keptById(id: string): string | undefined {
    this.store.seeOtherConnections();
    const key = `_id ${id}`;
    const hit = this.results.get(key);
    if (hit !== undefined && hit.version === this.version) {
      return hit.json === '' ? undefined : hit.json;
    }
    const json = this.storedById(id);
    if (this.keptVersion === this.version && (json?.length ?? 0) <= RESULT_CACHE_CHARACTERS) {
      this.results.set(key, { version: this.version, json: json ?? '' });
    }
    this.keptVersion = this.version;
    return json;
  }

  /**
   * The stored documents of `ids` (held changes first, the others in one query per 500 ids):
   * how a batch projection loads its documents without writing the held changes first.
   */
  private readByIds(ids: readonly string[]): ViewDocument[] {
    this.ensure();
    if (this.absent.size === 0 && this.prefetched.size === 0) {
      setImmediate(() => {
        this.absent.clear();
        this.prefetched.clear();
      });
    }
    const found: ViewDocument[] = [];
    const unheld: string[] = [];
    for (const id of new Set(ids)) {
      const held = this.store.held(this, id);
      if (held === undefined) unheld.push(id);
      else if (held !== null) found.push(JSON.parse(held) as ViewDocument);
    }
    for (let start = 0; start < unheld.length; start += 500) {
      const chunk = unheld.slice(start, start + 500);
      const marks = chunk.map(() => '?').join(', ');
      const rows = this.store
        .statement(`SELECT doc FROM ${this.table} WHERE id IN (${marks})`)
        .all(...chunk) as { doc: string }[];
      for (const id of chunk) this.absent.add(id);
      for (const row of rows) {
        const document = JSON.parse(row.doc) as ViewDocument;
        this.absent.delete(document._id);
        this.prefetched.set(document._id, row.doc);
        found.push(document);
      }
    }
    return found;
  }

  /** `FROM` clause and leading parameters of `condition`. */
  private from(condition: SqlCondition): { from: string; params: SQLInputValue[] } {
    const { driver } = condition;
    if (driver === undefined) return { from: this.table, params: [] };
    return {
      from: `${quoteIdentifier(driver.table)}(?) AS hits CROSS JOIN ${this.table} ON ${this.table}.rid = hits.rowid`,
      params: [driver.query],
    };
  }

  /**
   * Documents selected by `condition` in `order`, read one row at a time; every row is tested
   * with `test` unless the condition is exact. Stops once `take` documents passed `skip`.
   */
  private select(
    filter: Filter,
    condition: SqlCondition,
    order: string | undefined,
    skip: number,
    take: number | undefined,
  ): ViewDocument[] {
    const { from, params } = this.from(condition);
    const orderBy = order === undefined ? '' : ` ORDER BY ${order}`;
    const found: ViewDocument[] = [];
    if (condition.exact) {
      // Literal bounds (integers): a bound LIMIT costs several times a look-up by index.
      const page =
        take === undefined ? '' : ` LIMIT ${Math.trunc(take)} OFFSET ${Math.trunc(skip)}`;
      const rows = this.store
        .statement(`SELECT doc FROM ${from} WHERE ${condition.sql}${orderBy}${page}`)
        .all(...params, ...condition.params) as { doc: string }[];
      for (const row of rows) found.push(JSON.parse(row.doc) as ViewDocument);
      return found;
    }
    const test = compileFilter(filter);
    let skipped = 0;
    const statement = this.store.statement(
      `SELECT doc FROM ${from} WHERE ${condition.sql}${orderBy}`,
    );
    for (const row of statement.iterate(...params, ...condition.params)) {
      const document = JSON.parse((row as { doc: string }).doc) as ViewDocument;
      if (!test(document)) continue;
      if (skipped < skip) {
        skipped += 1;
        continue;
      }
      found.push(document);
      if (take !== undefined && found.length >= take) break;
    }
    return found;
  }

  /**
   * The first `count` documents matching `filter` in `sort` order when SQL cannot order them:
   * one pass over the candidates keeping the best `count`.
   */
  private selectFirst(
    filter: Filter,
    condition: SqlCondition,
    sort: Record<string, 1 | -1>,
    count: number,
  ): ViewDocument[] {
    const { from, params } = this.from(condition);
    const test = compileFilter(filter);
    const statement = this.store.statement(`SELECT doc FROM ${from} WHERE ${condition.sql}`);
    let compare: ((a: unknown, b: unknown) => number) | undefined = compileSort(sort);
    const first: ViewDocument[] = [];
    const all: ViewDocument[] = [];
    for (const row of statement.iterate(...params, ...condition.params)) {
      const document = JSON.parse((row as { doc: string }).doc) as ViewDocument;
      if (!test(document)) continue;
      if (compare === undefined) {
        all.push(document);
        continue;
      }
      try {
        if (first.length === count && compare(document, first[count - 1]) >= 0) continue;
        let low = 0;
        let high = first.length;
        while (low < high) {
          const middle = (low + high) >>> 1;
          if (compare(document, first[middle]) < 0) high = middle;
          else low = middle + 1;
        }
        first.splice(low, 0, document);
        if (first.length > count) first.pop();
      } catch (error) {
        if (!(error instanceof UnsortableError)) throw error;
        // A value the fast comparison does not order: sort every match the general way.
        compare = undefined;
        all.push(...first, document);
      }
    }
    if (compare !== undefined) return first;
    return sortDocuments(all, sort).slice(0, count);
  }

  /**
   * A page in `_id` order of a trigram-driven selection: one pass over the candidates reads
   * their ids (documents only when the condition needs a test), keeps the page's ids, and counts
   * the filter on the way (a first page is followed by its count); then the page is read.
   */
  private onePass(
    filter: Filter,
    condition: SqlCondition,
    direction: 1 | -1,
    skip: number,
    take: number,
  ): ViewDocument[] {
    const indexed = this.indexedRows(filter, condition);
    let rows: { rid: number; id: string; doc?: string }[];
    if (indexed !== undefined) {
      rows = this.store
        .statement(`SELECT indexed.rid AS rid, indexed.key AS id FROM ${indexed.from}`)
        .all(...indexed.params) as { rid: number; id: string }[];
    } else {
      const { from, params } = this.from(condition);
      const columns = `${this.table}.rid AS rid, ${this.table}.id AS id`;
      rows = this.store
        .statement(
          `SELECT ${columns}${condition.exact ? '' : ', doc'} FROM ${from} WHERE ${condition.sql}`,
        )
        .all(...params, ...condition.params) as { rid: number; id: string; doc?: string }[];
    }
    const test = condition.exact ? undefined : compileFilter(filter);
    const matched =
      test === undefined ? rows : rows.filter((row) => test(JSON.parse(row.doc ?? '{}')));
    this.remember(filter, matched.length);
    matched.sort((a, b) => (a.id < b.id ? -direction : a.id > b.id ? direction : 0));
    const read = this.statements().byRid;
    return matched.slice(skip, skip + take).map((row) => {
      const found = read.get(row.rid) as { doc: string };
      return JSON.parse(found.doc) as ViewDocument;
    });
  }

  /**
   * `FROM … WHERE …` (alias `indexed`, columns `rid` and `key`) over the rows table of the
   * substring index driving `condition`, when `filter` holds only its text, its fields and `_id`,
   * all strings: the search is then answered without reading documents. Undefined otherwise.
   */
  private indexedRows(
    filter: Filter,
    condition: SqlCondition,
  ):
    | { from: string; params: SQLInputValue[]; where: string; whereParams: SQLInputValue[] }
    | undefined {
    const table = condition.driver?.rowsTable;
    if (table === undefined) return undefined;
    const allowed = new Set(['_id', table.text, ...table.fields]);
    for (const path of Object.keys(filter)) {
      if (!allowed.has(path)) return undefined;
      if (path !== '_id' && (this.shape.mask(path) & ~(TYPE.string | TYPE.null)) !== 0) {
        return undefined;
      }
    }
    let typed = false;
    const columns: SqlCollection = {
      shape: this.shape,
      column: (path) =>
        path === '_id'
          ? 'indexed.key'
          : path === table.text
            ? 'indexed.value'
            : `indexed.${quoteIdentifier(path)}`,
      // The rows table keeps no JSON types: a condition needing one is answered otherwise.
      columnType: () => {
        typed = true;
        return 'NULL';
      },
      substringQuery: (path, trigrams) => this.substringQuery(path, trigrams),
    };
    const translated = translateFilter(filter, columns);
    const { driver } = translated;
    if (typed || !translated.exact || driver === undefined) return undefined;
    return {
      from: `${quoteIdentifier(driver.table)}(?) AS hits CROSS JOIN ${quoteIdentifier(table.name)} AS indexed ON indexed.rid = hits.rowid WHERE ${translated.sql}`,
      params: [driver.query, ...translated.params],
      where: translated.sql,
      whereParams: translated.params,
    };
  }

  /**
   * A page in `_id` order of a search answered by a substring index's rows table, walking the
   * table's `key` index and keeping the rows among the trigram candidates: it stops at the end
   * of the page, so a common substring costs a page, not its matches. Undefined when the rows
   * table cannot answer the filter.
   */
  private walkIndexed(
    filter: Filter,
    condition: SqlCondition,
    direction: 1 | -1,
    skip: number,
    take: number,
  ): ViewDocument[] | undefined {
    const { driver } = condition;
    const table = driver?.rowsTable;
    if (driver === undefined || table === undefined) return undefined;
    const indexed = this.indexedRows(filter, condition);
    if (indexed === undefined) return undefined;
    const order = direction === 1 ? 'ASC' : 'DESC';
    // `+rid`: the candidates are a membership test, so SQLite walks the `key` index in order.
    const rows = this.store
      .statement(
        `SELECT indexed.rid AS rid FROM ${quoteIdentifier(table.name)} AS indexed
          WHERE +indexed.rid IN (SELECT rowid FROM ${quoteIdentifier(driver.table)}(?))
          AND ${indexed.where} ORDER BY indexed.key ${order} LIMIT ? OFFSET ?`,
      )
      .all(driver.query, ...indexed.whereParams, take, skip) as { rid: number }[];
    const read = this.statements().byRid;
    return rows.map(
      (row) => JSON.parse((read.get(row.rid) as { doc: string }).doc) as ViewDocument,
    );
  }

  findOne(filter: Filter): Promise<ViewDocument | null> {
    return Promise.resolve(this.firstMatch(filter, true));
  }

  /**
   * The first document matching `filter`, a copy; by `_id` without touching SQL when given
   * (kept for the reads of callers, `keep`: see {@link readById}).
   */
  private firstMatch(filter: Filter, keep = false): ViewDocument | null {
    const id = filter._id;
    if (typeof id === 'string') {
      const document = this.readById(id, keep);
      return document !== null && compileFilter(filter)(document) ? document : null;
    }
    const [first] = this.cachedQuery(queryKey([filter, 1]), () =>
      this.select(filter, translateFilter(filter, this), undefined, 0, 1),
    );
    return first ?? null;
  }

  /**
   * The documents of a query (`key`: its filter and options) that `run` selects, after
   * {@link prepareRead}. A read-mostly collection (not changed since its previous query) keeps
   * small results, as JSON, until its next change: look-ups of settings, domains and workflows
   * that every event repeats then touch no SQL. Each call returns its own copies.
   */
  private cachedQuery(key: string | undefined, run: () => ViewDocument[]): ViewDocument[] {
    this.prepareRead();
    if (key === undefined) return run();
    const hit = this.results.get(key);
    if (hit !== undefined && hit.version === this.version) {
      return JSON.parse(hit.json) as ViewDocument[];
    }
    const found = run();
    if (this.queriedVersion === this.version && found.length <= RESULT_CACHE_DOCUMENTS) {
      const json = JSON.stringify(found);
      if (json.length <= RESULT_CACHE_CHARACTERS) {
        this.results.set(key, { version: this.version, json });
      }
    }
    this.queriedVersion = this.version;
    return found;
  }

  find(filter: Filter, options: FindOptions = {}): Promise<ViewDocument[]> {
    const skip = options.skip ?? 0;
    const take = options.limit === undefined || options.limit === 0 ? undefined : options.limit;
    const id = filter._id;
    if (typeof id === 'string') {
      const document = this.firstMatch(filter, true);
      return Promise.resolve(document === null || skip > 0 || take === 0 ? [] : [document]);
    }
    const ids = idList(filter);
    if (ids !== undefined && options.sort === undefined && skip === 0 && take === undefined) {
      return Promise.resolve(this.readByIds(ids));
    }
    return Promise.resolve(
      this.cachedQuery(queryKey([filter, options.sort ?? null, skip, take ?? null]), () =>
        this.query(filter, options.sort, skip, take),
      ),
    );
  }

  /** {@link find} of documents not selected by `_id`. */
  private query(
    filter: Filter,
    sort: FindOptions['sort'],
    skip: number,
    take: number | undefined,
  ): ViewDocument[] {
    let condition = translateFilter(filter, this);
    const byId = sort !== undefined && Object.keys(sort).length === 1 ? sort._id : undefined;
    if (condition.driver !== undefined && byId !== undefined && take !== undefined) {
      // Many candidates, and no count to take on the way (it is known, or this is a later
      // page): walk the index rows in `_id` order and stop at the page's end.
      const known = this.counts.get(JSON.stringify(filter))?.count;
      const matches = known ?? (filter._id === undefined ? undefined : condition.driver.rows);
      if (matches !== undefined && matches >= this.store.options.walkRows) {
        const walked = this.walkIndexed(filter, condition, byId, skip, take);
        if (walked !== undefined) return walked;
      }
      if (condition.driver.rows <= ONE_PASS_ROWS) {
        return this.onePass(filter, condition, byId, skip, take);
      }
      // Too many candidates to sort: walk the `_id` order and stop at the page's end.
      condition = { ...condition, driver: undefined };
    }
    if (sort === undefined || Object.keys(sort).length === 0) {
      return this.select(filter, condition, undefined, skip, take);
    }
    const order = translateSort(sort, this.shape);
    if (order !== undefined) {
      return this.select(filter, condition, order, skip, take);
    }
    if (take !== undefined) {
      return this.selectFirst(filter, condition, sort, skip + take).slice(skip);
    }
    const all = sortDocuments(this.select(filter, condition, undefined, 0, undefined), sort);
    return all.slice(skip);
  }

  countDocuments(filter: Filter): Promise<number> {
    this.ensure();
    this.store.seeOtherConnections();
    const key = JSON.stringify(filter);
    // Kept current by every write, held ones too: no need to write them first.
    const cached = this.counts.get(key);
    if (cached !== undefined) return Promise.resolve(cached.count);
    this.prepareRead();
    const condition = translateFilter(filter, this);
    const indexed = this.indexedRows(filter, condition);
    let count: number;
    if (indexed !== undefined) {
      const row = this.store
        .statement(`SELECT count(*) AS count FROM ${indexed.from}`)
        .get(...indexed.params) as { count: number };
      count = row.count;
    } else if (condition.exact) {
      const { from, params } = this.from(condition);
      const row = this.store
        .statement(`SELECT count(*) AS count FROM ${from} WHERE ${condition.sql}`)
        .get(...params, ...condition.params) as { count: number };
      count = row.count;
    } else {
      count = this.select(filter, condition, undefined, 0, undefined).length;
    }
    this.remember(filter, count);
    return Promise.resolve(count);
  }

  /** Caches the count of `filter`, kept current by later writes ({@link recount}). */
  private remember(filter: Filter, count: number): void {
    this.counts.set(JSON.stringify(filter), { count, test: compileFilter(filter) });
  }

  distinct(path: string, filter: Filter): Promise<unknown[]> {
    this.prepareRead();
    const condition = translateFilter(filter, this);
    const values = new Map<string, unknown>();
    const add = (value: unknown): void => {
      if (value === undefined) return;
      const key = typeof value === 'string' ? `s${value}` : JSON.stringify(value);
      if (!values.has(key)) values.set(key, value);
    };
    const mask = path === '_id' ? TYPE.string : this.shape.mask(path);
    const plain = translatablePath(path) && (path === '_id' || this.shape.plain(path));
    if (condition.exact && plain && (mask & TYPE.object) === 0) {
      const { from, params } = this.from(condition);
      const field = fieldExpression(path);
      const type = path === '_id' ? "'text'" : typeExpression(path);
      const rows = this.store
        .statement(
          `SELECT DISTINCT ${field} AS value, ${type} AS type FROM ${from} WHERE (${condition.sql}) AND ${type} IS NOT NULL`,
        )
        .all(...params, ...condition.params) as { value: SQLInputValue; type: string }[];
      for (const { value, type: kind } of rows) {
        if (kind === 'true') add(true);
        else if (kind === 'false') add(false);
        else if (kind === 'null') add(null);
        else add(value);
      }
      return Promise.resolve([...values.values()]);
    }
    for (const document of this.select(filter, condition, undefined, 0, undefined)) {
      const value = fieldValue(document, path);
      if (Array.isArray(value)) for (const element of value) add(element);
      else add(value);
    }
    return Promise.resolve([...values.values()]);
  }

  /** The cached counts that count `document` (see {@link recount}); undefined when none. */
  private countedIn(document: ViewDocument): Set<CachedCount> | undefined {
    if (this.counts.size === 0) return undefined;
    const counted = new Set<CachedCount>();
    for (const entry of this.counts.values()) if (entry.test(document)) counted.add(entry);
    return counted;
  }

  /**
   * Moves the cached counts by one write: `next` is the document written (undefined: removed),
   * `previous` the counts its earlier version was in ({@link countedIn}).
   */
  private recount(next: ViewDocument | undefined, previous: Set<CachedCount> | undefined): void {
    this.writes += 1;
    for (const entry of this.counts.values()) {
      if (next !== undefined && entry.test(next)) entry.count += 1;
      if (previous?.has(entry) === true) entry.count -= 1;
    }
  }

  /**
   * Stores `document`, whose earlier version was in the cached counts `previous`. The document
   * is serialized at once and not kept: callers need not copy what they pass.
   * @throws DuplicateKeyError on a unique index.
   */
  private put(document: ViewDocument, previous: Set<CachedCount> | undefined): void {
    this.version += 1;
    this.forget(document._id);
    const json = JSON.stringify(document);
    const grown = this.shape.widen(document);
    if (this.unique) {
      try {
        this.store.writeThrough(() => {
          this.store.writePaths(this.name, grown);
          this.write(document._id, json);
        });
      } catch (error) {
        if (isUniqueViolation(error)) throw new DuplicateKeyError(this.name, document._id);
        throw error;
      }
    } else {
      this.store.stage(this, document._id, json, grown);
    }
    this.recount(document, previous);
  }

  private remove(document: ViewDocument): void {
    this.version += 1;
    this.forget(document._id);
    this.store.stage(this, document._id, null, []);
    this.recount(undefined, this.countedIn(document));
  }

  /** Stores a document read from the earlier layout (no checks). */
  restore(document: ViewDocument): void {
    this.version += 1;
    this.forget(document._id);
    this.ensure();
    this.store.stage(this, document._id, JSON.stringify(document), this.shape.widen(document));
  }

  /** Drops what {@link readByIds} remembered of `id` (it is being written). */
  private forget(id: string): void {
    this.absent.delete(id);
    this.prefetched.delete(id);
  }

  async insertOne(document: ViewDocument): Promise<void> {
    if (this.readById(document._id) !== null) {
      throw new DuplicateKeyError(this.name, document._id);
    }
    this.put(document, undefined);
  }

  /** Every document matching `filter`, in batches read after the previous batch's writes. */
  private forEachMatch(filter: Filter, visit: (document: ViewDocument) => void): number {
    const id = filter._id;
    if (typeof id === 'string') {
      const document = this.firstMatch(filter);
      if (document !== null) visit(document);
      return document === null ? 0 : 1;
    }
    let matched = 0;
    let after = 0;
    for (;;) {
      this.prepareRead();
      const condition = translateFilter(filter, this);
      const { from, params } = this.from(condition);
      const rows = this.store
        .statement(
          `SELECT ${this.table}.rid AS rid, doc FROM ${from} WHERE (${condition.sql}) AND ${this.table}.rid > ? ORDER BY ${this.table}.rid LIMIT ${WRITE_BATCH}`,
        )
        .all(...params, ...condition.params, after) as { rid: number; doc: string }[];
      const test = condition.exact ? undefined : compileFilter(filter);
      for (const row of rows) {
        const document = JSON.parse(row.doc) as ViewDocument;
        if (test !== undefined && !test(document)) continue;
        matched += 1;
        visit(document);
      }
      const last = rows[rows.length - 1];
      if (last === undefined || rows.length < WRITE_BATCH) return matched;
      after = last.rid;
    }
  }

  private updateSync(filter: Filter, update: Update, upsert: boolean, many: boolean): UpdateResult {
    const { $setOnInsert, ...modifier } = update;
    let modifiedCount = 0;
    const apply = (target: ViewDocument): void => {
      // `target` is this call's own copy, changed in place once its counts are known.
      const counted = this.countedIn(target);
      const changed =
        applySimpleUpdate(target, modifier) ??
        mingoUpdater().update(target, modifier, [], undefined, { cloneMode: 'deep' }).length > 0;
      if (changed) {
        this.put(target, counted);
        modifiedCount += 1;
      }
    };
    let matchedCount: number;
    /** Whether the document of the filter's `_id` is known to be absent (read just now). */
    let absent = false;
    if (many) {
      matchedCount = this.forEachMatch(filter, apply);
    } else if (typeof filter._id === 'string') {
      const stored = this.readById(filter._id);
      absent = stored === null;
      const target = stored !== null && compileFilter(filter)(stored) ? stored : null;
      if (target !== null) apply(target);
      matchedCount = target === null ? 0 : 1;
    } else {
      const target = this.firstMatch(filter);
      if (target !== null) apply(target);
      matchedCount = target === null ? 0 : 1;
    }
    if (matchedCount > 0 || !upsert) return { matchedCount, modifiedCount };
    const created: Record<string, unknown> = {};
    for (const [field, value] of Object.entries(filter)) {
      if (!field.startsWith('$') && !field.includes('.') && (scalar(value) || value === null)) {
        created[field] = value;
      }
    }
    const insert = { ...modifier, $set: { ...modifier.$set, ...$setOnInsert } };
    if (applySimpleUpdate(created, insert) === undefined) {
      mingoUpdater().update(created, insert, [], undefined, { cloneMode: 'deep' });
    }
    if (typeof created._id !== 'string') {
      throw new Error(`upsert into ${this.name} needs a string _id in the filter or update`);
    }
    const document = created as ViewDocument;
    const exists = !(absent && document._id === filter._id) && this.readById(document._id) !== null;
    if (exists) throw new DuplicateKeyError(this.name, document._id);
    this.put(document, undefined);
    return { matchedCount: 0, modifiedCount: 0, upsertedId: document._id };
  }

  async updateOne(
    filter: Filter,
    update: Update,
    options: { upsert?: boolean } = {},
  ): Promise<UpdateResult> {
    return this.updateSync(filter, update, options.upsert ?? false, false);
  }

  async updateMany(filter: Filter, update: Update): Promise<UpdateResult> {
    return this.updateSync(filter, update, false, true);
  }

  private replaceSync(filter: Filter, replacement: ViewDocument, upsert: boolean): UpdateResult {
    const target = this.firstMatch(filter) ?? undefined;
    if (target === undefined && !upsert) return { matchedCount: 0, modifiedCount: 0 };
    const next = { ...replacement, _id: target?._id ?? replacement._id };
    if (target === undefined && this.readById(next._id) !== null) {
      throw new DuplicateKeyError(this.name, next._id);
    }
    this.put(next, target === undefined ? undefined : this.countedIn(target));
    return target === undefined
      ? { matchedCount: 0, modifiedCount: 0, upsertedId: next._id }
      : { matchedCount: 1, modifiedCount: 1 };
  }

  async replaceOne(
    filter: Filter,
    replacement: ViewDocument,
    options: { upsert?: boolean } = {},
  ): Promise<UpdateResult> {
    return this.replaceSync(filter, replacement, options.upsert ?? false);
  }

  deleteOne(filter: Filter): Promise<{ deletedCount: number }> {
    const target = this.firstMatch(filter);
    if (target !== null) this.remove(target);
    return Promise.resolve({ deletedCount: target === null ? 0 : 1 });
  }

  deleteMany(filter: Filter): Promise<{ deletedCount: number }> {
    const deletedCount = this.forEachMatch(filter, (document) => {
      this.remove(document);
    });
    return Promise.resolve({ deletedCount });
  }

  bulkWrite(operations: readonly BulkOperation[]): Promise<void> {
    const failures: Error[] = [];
    for (const operation of operations) {
      try {
        if ('updateOne' in operation) {
          const { filter, update, upsert } = operation.updateOne;
          this.updateSync(filter, update, upsert ?? false, false);
        } else if ('replaceOne' in operation) {
          const { filter, replacement, upsert } = operation.replaceOne;
          this.replaceSync(filter, replacement, upsert ?? false);
        } else {
          const target = this.firstMatch(operation.deleteOne.filter);
          if (target !== null) this.remove(target);
        }
      } catch (error) {
        if (!(error instanceof DuplicateKeyError)) failures.push(error as Error);
      }
    }
    const failure = failures[0];
    return failure === undefined ? Promise.resolve() : Promise.reject(failure);
  }

  /**
   * Aggregation: a leading `$match` selects through SQL like `find`; the later stages run in
   * memory (mingo) over the selected documents.
   */
  aggregate<R>(pipeline: readonly Record<string, unknown>[]): Promise<R[]> {
    const [first, ...rest] = pipeline;
    let filter: Filter = {};
    let stages = pipeline;
    if (first !== undefined && '$match' in first) {
      filter = first.$match as Filter;
      stages = rest;
    }
    this.prepareRead();
    const source = this.select(filter, translateFilter(filter, this), undefined, 0, undefined);
    return Promise.resolve(mingoQuery().aggregate(source, [...stages] as AnyObject[], {}) as R[]);
  }

  createIndex(keys: IndexKeys, options: IndexOptions = {}): Promise<void> {
    this.ensure();
    const fields = Object.keys(keys);
    for (const field of fields) {
      if (!translatablePath(field)) throw new Error(`index of ${this.name}: bad path ${field}`);
    }
    if (options.substring === true) {
      const text = fields[fields.length - 1];
      if (text === undefined || text === '_id' || fields.slice(0, -1).includes('_id')) {
        throw new Error(`substring index of ${this.name}: fields, then the text (no _id)`);
      }
      this.createSubstringIndex(text, fields.slice(0, -1));
      return Promise.resolve();
    }
    const unique = options.unique ?? false;
    const table = tableName(this.name);
    const name = `${table}:${unique ? 'unique:' : ''}${fields
      .map((field) => `${field}${keys[field] === -1 ? ' desc' : ''}`)
      .join(',')}`;
    const columns = fields.map(
      (field) => `${fieldExpression(field)}${keys[field] === -1 ? ' DESC' : ''}`,
    );
    // Non-unique indexes end with `id`: equality on their fields reads rows in `_id` order.
    if (!unique && !fields.includes('_id')) columns.push('id');
    try {
      this.store.exec(
        `CREATE ${unique ? 'UNIQUE ' : ''}INDEX IF NOT EXISTS ${quoteIdentifier(name)} ON ${this.table} (${columns.join(', ')})`,
      );
    } catch (error) {
      if (isUniqueViolation(error)) throw new DuplicateKeyError(this.name, name);
      throw error;
    }
    if (unique) this.unique = true;
    return Promise.resolve();
  }

  /**
   * An FTS5 trigram index of the string values at `path` (contentless, FTS5 `secure-delete`: a
   * deleted value leaves no index entries), and a table of the indexed rows (`rid`, `key` =
   * `_id`, `value`, then `fields`) in which a search whose other conditions are equalities on
   * `fields` checks its candidates without reading their documents. Both are kept current by
   * {@link write}.
   */
  private createSubstringIndex(path: string, fields: readonly string[]): void {
    if (this.substringIndexes.has(path)) return;
    const name = `${tableName(this.name)}:substring:${path}`;
    const index = quoteIdentifier(name);
    const rows = `${name}:rows`;
    const columns = fields.map((field) => `, ${quoteIdentifier(field)}`).join('');
    const values = fields.map((field) => `, ${fieldExpression(field)}`).join('');
    const isText = `${typeExpression(path)} = 'text'`;
    // Written before the index exists: the held changes reach the table first.
    this.store.writeThrough(() => {
      const { db } = this.store;
      db.exec(`CREATE VIRTUAL TABLE ${index} USING fts5(value, content='',
        contentless_delete=1, tokenize='trigram', detail='none')`);
      db.exec(`INSERT INTO ${index} (${index}, rank) VALUES ('secure-delete', 1)`);
      // Merges fewer, larger segments: faster writes, and searches no slower (measured).
      db.exec(`INSERT INTO ${index} (${index}, rank) VALUES ('automerge', 8)`);
      db.exec(`INSERT INTO ${index} (rowid, value)
        SELECT rid, ${fieldExpression(path)} FROM ${this.table} WHERE ${isText}`);
      db.exec(`CREATE TABLE ${quoteIdentifier(rows)} (
        rid INTEGER PRIMARY KEY, key TEXT NOT NULL, value TEXT NOT NULL${columns})`);
      db.exec(`INSERT INTO ${quoteIdentifier(rows)}
        SELECT rid, id, ${fieldExpression(path)}${values} FROM ${this.table} WHERE ${isText}`);
      db.exec(`CREATE INDEX ${quoteIdentifier(`${rows}:key`)} ON ${quoteIdentifier(rows)} (key)`);
    });
    this.substringIndexes.set(path, { table: name, rows, fields });
    this.prepared = undefined;
  }
}
