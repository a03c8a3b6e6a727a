import type { DatabaseSync, StatementSync } from 'node:sqlite';

import { aggregate, Query } from 'mingo';
import { update as applyUpdate } from 'mingo/updater';
import type { AnyObject } from 'mingo/types';

import { transaction } from '../sqlite/database.ts';
import { compileFilter, compileSort, UnsortableError } from './simple-filter.ts';
import { applySimpleUpdate } from './simple-update.ts';
import {
  type BulkOperation,
  DuplicateKeyError,
  type Filter,
  type FindOptions,
  type IndexKeys,
  type Update,
  type UpdateResult,
  type ViewCollection,
  type ViewDocument,
  type ViewStore,
} from './view-store.ts';

/**
 * An in-memory hash index: key → ids. A key held by one document keeps its id as a string (most
 * keys are unique: emails, key hashes), a Set only from the second holder on.
 */
class HashIndex {
  readonly fields: string[];
  readonly unique: boolean;
  private readonly entries = new Map<string, string | Set<string>>();

  constructor(fields: string[], unique: boolean) {
    this.fields = fields;
    this.unique = unique;
  }

  /** Ids holding `key` (empty when none). */
  get(key: string): ReadonlySet<string> | readonly string[] {
    const held = this.entries.get(key);
    if (held === undefined) return [];
    return typeof held === 'string' ? [held] : held;
  }

  add(key: string, id: string): void {
    const held = this.entries.get(key);
    if (held === undefined || held === id) this.entries.set(key, id);
    else if (typeof held === 'string') this.entries.set(key, new Set([held, id]));
    else held.add(id);
  }

  remove(key: string, id: string): void {
    const held = this.entries.get(key);
    if (held === id) this.entries.delete(key);
    else if (typeof held === 'object') {
      held.delete(id);
      if (held.size === 1) this.entries.set(key, [...held][0] ?? '');
    }
  }

  clear(): void {
    this.entries.clear();
  }
}

const sizeOf = (ids: ReadonlySet<string> | readonly string[]): number =>
  'size' in ids ? ids.size : ids.length;

const scalar = (value: unknown): boolean =>
  typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';

function fieldValue(document: Record<string, unknown>, path: string): unknown {
  let current: unknown = document;
  for (const part of path.split('.')) {
    if (current === null || typeof current !== 'object') return undefined;
    current = Object.hasOwn(current, part) ? (current as Record<string, unknown>)[part] : undefined;
  }
  return current;
}

function indexKey(index: HashIndex, document: Record<string, unknown>): string | undefined {
  const values = index.fields.map((field) => fieldValue(document, field));
  if (index.unique && values.some((value) => value === undefined || value === null)) {
    return undefined;
  }
  return JSON.stringify(values);
}

/**
 * Embedded view store: every collection is held in memory (a Map by `_id`, loaded from SQLite on
 * first use); changes are written behind to the `view_documents` table in batched transactions,
 * so views survive restarts. The embedded bus flushes them before it records a checkpoint, so a
 * view on disk is never behind the checkpoints of its projections.
 * Queries use mingo (MongoDB query semantics); equality filters on indexed fields are answered
 * from in-memory hash indexes instead of a scan.
 */
export class SqliteViewStore implements ViewStore {
  private readonly db: DatabaseSync;
  private readonly collections = new Map<string, SqliteViewCollection>();
  readonly statements: { load: StatementSync; put: StatementSync; remove: StatementSync };
  /** Changed documents not yet on disk, by collection and id (null = removed). */
  private readonly pending = new Map<string, Map<string, ViewDocument | null>>();
  private flushTimer: NodeJS.Timeout | undefined;
  private readonly flushMs: number;

  /**
   * @param flushMs how long a change may stay in memory only, ms (default 50): writes are
   *   batched into one transaction. Call {@link flush} before recording a checkpoint.
   */
  constructor(db: DatabaseSync, flushMs = 50) {
    this.flushMs = flushMs;
    this.db = db;
    db.exec(`CREATE TABLE IF NOT EXISTS view_documents (
      collection TEXT NOT NULL, id TEXT NOT NULL, document TEXT NOT NULL,
      PRIMARY KEY (collection, id)) WITHOUT ROWID`);
    this.statements = {
      load: db.prepare('SELECT document FROM view_documents WHERE collection = ?'),
      put: db.prepare(
        'INSERT OR REPLACE INTO view_documents (collection, id, document) VALUES (?, ?, ?)',
      ),
      remove: db.prepare('DELETE FROM view_documents WHERE collection = ? AND id = ?'),
    };
  }

  collection<T extends ViewDocument = ViewDocument>(name: string): ViewCollection<T> {
    let collection = this.collections.get(name);
    if (collection === undefined) {
      collection = new SqliteViewCollection(name, this);
      this.collections.set(name, collection);
    }
    return collection as unknown as ViewCollection<T>;
  }

  /** Records a changed (`document`) or removed (null) document; written by the next flush. */
  stage(collection: string, id: string, document: ViewDocument | null): void {
    let changes = this.pending.get(collection);
    if (changes === undefined) {
      changes = new Map();
      this.pending.set(collection, changes);
    }
    changes.set(id, document);
    this.flushTimer ??= setTimeout(() => {
      this.flushSync();
    }, this.flushMs);
  }

  /** Writes every staged change to disk in one transaction. */
  flush(): Promise<void> {
    this.flushSync();
    return Promise.resolve();
  }

  /** Synchronous {@link flush}. */
  flushSync(): void {
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    if (this.pending.size === 0) return;
    transaction(this.db, () => {
      for (const [collection, changes] of this.pending) {
        for (const [id, document] of changes) {
          if (document === null) this.statements.remove.run(collection, id);
          else this.statements.put.run(collection, id, JSON.stringify(document));
        }
      }
    });
    this.pending.clear();
  }

  drop(name: string): Promise<void> {
    this.pending.delete(name);
    this.db.prepare('DELETE FROM view_documents WHERE collection = ?').run(name);
    this.collections.get(name)?.clear();
    return Promise.resolve();
  }

  close(): Promise<void> {
    this.flushSync();
    return Promise.resolve();
  }
}

class SqliteViewCollection implements ViewCollection {
  private readonly name: string;
  private readonly store: SqliteViewStore;
  private readonly documents = new Map<string, ViewDocument>();
  /**
   * Documents in ascending `_id` order, built on the first `_id`-sorted page and kept current
   * (ids are time-ordered, so new documents are mostly appended; a replaced document takes its
   * predecessor's slot); a removed document leaves a null until the next rebuild. Undefined =
   * to be built.
   */
  private ordered: (ViewDocument | null)[] | undefined;
  private removedSinceOrder = 0;
  /** Changes with every write; keys the count cache. */
  private version = 0;
  /** Last count of a filter, valid while `version` is unchanged. */
  private lastCount: { key: string; version: number; count: number } | undefined;
  private readonly indexes: HashIndex[] = [];

  constructor(name: string, store: SqliteViewStore) {
    this.name = name;
    this.store = store;
    for (const row of store.statements.load.iterate(name)) {
      const document = JSON.parse((row as { document: string }).document) as ViewDocument;
      this.documents.set(document._id, document);
    }
  }

  clear(): void {
    this.documents.clear();
    this.ordered = undefined;
    this.version += 1;
    for (const index of this.indexes) index.clear();
  }

  /** Candidates for `filter`: from an index whose fields all have equality values, else all. */
  private candidates(filter: Filter): Iterable<ViewDocument> {
    const id = filter._id;
    if (scalar(id)) {
      const document = this.documents.get(String(id));
      return document === undefined ? [] : [document];
    }
    let best: ReadonlySet<string> | readonly string[] | undefined;
    for (const index of this.indexes) {
      if (!index.fields.every((field) => scalar(filter[field]))) continue;
      const ids = index.get(JSON.stringify(index.fields.map((field) => filter[field])));
      if (best === undefined || sizeOf(ids) < sizeOf(best)) best = ids;
    }
    // Walking the map beats looking up most of its ids one by one.
    if (best === undefined || sizeOf(best) * 4 > this.documents.size) {
      return this.documents.values();
    }
    const found: ViewDocument[] = [];
    for (const documentId of best) {
      const document = this.documents.get(documentId);
      if (document !== undefined) found.push(document);
    }
    return found;
  }

  private matching(filter: Filter): ViewDocument[] {
    const test = compileFilter(filter);
    const result: ViewDocument[] = [];
    for (const document of this.candidates(filter)) {
      if (test(document)) result.push(document);
    }
    return result;
  }

  private checkUnique(document: ViewDocument): void {
    for (const index of this.indexes) {
      if (!index.unique) continue;
      const key = indexKey(index, document);
      if (key === undefined) continue;
      for (const holder of index.get(key)) {
        if (holder !== document._id) throw new DuplicateKeyError(this.name, key);
      }
    }
  }

  private unindex(document: ViewDocument): void {
    for (const index of this.indexes) {
      const key = indexKey(index, document);
      if (key !== undefined) index.remove(key, document._id);
    }
  }

  private index(document: ViewDocument): void {
    for (const index of this.indexes) {
      const key = indexKey(index, document);
      if (key !== undefined) index.add(key, document._id);
    }
  }

  /** Stores `document` (replacing `previous`), in memory and on disk. */
  private put(document: ViewDocument, previous: ViewDocument | undefined): void {
    this.checkUnique(document);
    if (previous !== undefined) this.unindex(previous);
    this.documents.set(document._id, document);
    this.index(document);
    this.version += 1;
    if (this.ordered !== undefined) this.place(document._id, document);
    this.store.stage(this.name, document._id, document);
  }

  /** Index in {@link ordered} of the first slot whose id is not below `id`. */
  private slotOf(id: string): number {
    const ordered = this.ordered ?? [];
    let low = 0;
    let high = ordered.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      const held = ordered[middle];
      // A null slot keeps its place: compare with the nearest document before it.
      let probe = middle;
      let probed = held;
      while (probed === null && probe > low) probed = ordered[--probe];
      if (probed !== null && probed !== undefined && probed._id < id) low = middle + 1;
      else if (probed === null || probed === undefined) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  /** Puts `document` (or null, for a removal) in its slot of {@link ordered}. */
  private place(id: string, document: ViewDocument | null): void {
    const ordered = this.ordered ?? [];
    const last = ordered[ordered.length - 1];
    if (document !== null && (last === undefined || (last !== null && id > last._id))) {
      ordered.push(document);
      return;
    }
    const slot = this.slotOf(id);
    if (ordered[slot]?._id === id) ordered[slot] = document;
    else if (document !== null) ordered.splice(slot, 0, document);
    else this.ordered = undefined;
  }

  private remove(document: ViewDocument): void {
    this.unindex(document);
    this.documents.delete(document._id);
    this.version += 1;
    this.removedSinceOrder += 1;
    if (this.ordered !== undefined) this.place(document._id, null);
    this.store.stage(this.name, document._id, null);
  }

  /** {@link ordered}, built (or compacted after many removals) when needed. */
  private ascending(): (ViewDocument | null)[] {
    if (this.ordered === undefined || this.removedSinceOrder * 10 > this.documents.size) {
      this.ordered = [...this.documents.values()].sort((a, b) =>
        a._id < b._id ? -1 : a._id > b._id ? 1 : 0,
      );
      this.removedSinceOrder = 0;
    }
    return this.ordered;
  }

  /**
   * A page in `_id` order: walks the ordered ids from the start (1) or the end (-1), from the
   * bound of an `_id: {$lt | $gt}` condition when the walk can begin there, testing each
   * document until `count` match. Costs the documents walked, not the collection.
   */
  private walkById(filter: Filter, direction: 1 | -1, count: number): ViewDocument[] {
    const ordered = this.ascending();
    const test = compileFilter(filter);
    const bound = filter._id as { $lt?: unknown; $gt?: unknown } | undefined;
    let index = direction === 1 ? 0 : ordered.length - 1;
    const limit = direction === 1 ? bound?.$gt : bound?.$lt;
    const bounded = typeof limit === 'string';
    if (bounded) {
      const slot = this.slotOf(limit);
      index = direction === 1 ? slot : slot - 1;
    }
    // A first page (no bound) is usually followed by a count of the same filter: when no index
    // answers that count, walking on to the end counts the matches in the same pass.
    const countAll = !bounded && this.indexCount(filter) === undefined;
    const found: ViewDocument[] = [];
    let matched = 0;
    for (; index >= 0 && index < ordered.length; index += direction) {
      const document = ordered[index];
      if (document === null || document === undefined || !test(document)) continue;
      matched += 1;
      if (found.length < count) found.push(document);
      else if (!countAll) break;
    }
    if (countAll) {
      // The walk saw every document: it counted the filter's matches on the way.
      this.lastCount = { key: JSON.stringify(filter), version: this.version, count: matched };
    }
    return found;
  }

  findOne(filter: Filter): Promise<ViewDocument | null> {
    const test = compileFilter(filter);
    for (const document of this.candidates(filter)) {
      if (test(document)) return Promise.resolve(structuredClone(document));
    }
    return Promise.resolve(null);
  }

  /**
   * The first `count` documents matching `test` in `compare` order, by one pass that keeps the
   * best `count` in a sorted array: a page of a large collection costs no full sort.
   * @throws UnsortableError when a sort key holds a value `compare` does not order.
   */
  private selectFirst(
    filter: Filter,
    compare: (a: unknown, b: unknown) => number,
    count: number,
  ): ViewDocument[] {
    const test = compileFilter(filter);
    const first: ViewDocument[] = [];
    for (const document of this.candidates(filter)) {
      if (!test(document)) continue;
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
    }
    return first;
  }

  find(filter: Filter, options: FindOptions = {}): Promise<ViewDocument[]> {
    const start = options.skip ?? 0;
    const sortKeys = options.sort === undefined ? [] : Object.keys(options.sort);
    if (sortKeys.length === 1 && sortKeys[0] === '_id' && options.limit !== undefined) {
      const direction = options.sort?._id ?? 1;
      const page = this.walkById(filter, direction, start + options.limit);
      return Promise.resolve(page.slice(start).map((document) => structuredClone(document)));
    }
    if (options.sort !== undefined && options.limit !== undefined && options.limit > 0) {
      try {
        const first = this.selectFirst(filter, compileSort(options.sort), start + options.limit);
        return Promise.resolve(first.slice(start).map((document) => structuredClone(document)));
      } catch (error) {
        if (!(error instanceof UnsortableError)) throw error;
      }
    }
    let documents = this.matching(filter);
    if (options.sort !== undefined) {
      try {
        documents.sort(compileSort(options.sort));
      } catch (error) {
        if (!(error instanceof UnsortableError)) throw error;
        documents = new Query({}, {}).find<ViewDocument>(documents).sort(options.sort).all();
      }
    }
    const end =
      options.limit === undefined || options.limit === 0 ? undefined : start + options.limit;
    return Promise.resolve(
      documents.slice(start, end).map((document) => structuredClone(document)),
    );
  }

  countDocuments(filter: Filter): Promise<number> {
    const key = JSON.stringify(filter);
    if (this.lastCount?.key === key && this.lastCount.version === this.version) {
      return Promise.resolve(this.lastCount.count);
    }
    return this.countSync(filter).then((count) => {
      this.lastCount = { key, version: this.version, count };
      return count;
    });
  }

  /** The number of documents matching `filter` when an index answers it, else undefined. */
  private indexCount(filter: Filter): number | undefined {
    const fields = Object.keys(filter);
    if (fields.length === 0) return this.documents.size;
    // Equality on exactly the fields of an index: the index holds the answer.
    for (const index of this.indexes) {
      if (index.fields.length !== fields.length) continue;
      if (!index.fields.every((field) => scalar(filter[field]))) continue;
      return sizeOf(index.get(JSON.stringify(index.fields.map((field) => filter[field]))));
    }
    return undefined;
  }

  private countSync(filter: Filter): Promise<number> {
    const counted = this.indexCount(filter);
    if (counted !== undefined) return Promise.resolve(counted);
    return Promise.resolve(this.matching(filter).length);
  }

  distinct(path: string, filter: Filter): Promise<unknown[]> {
    const test = compileFilter(filter);
    const values = new Map<string, unknown>();
    const add = (value: unknown): void => {
      if (value === undefined) return;
      const key = typeof value === 'string' ? `s${value}` : JSON.stringify(value);
      if (!values.has(key)) values.set(key, structuredClone(value));
    };
    for (const document of this.candidates(filter)) {
      if (!test(document)) continue;
      const value = fieldValue(document, path);
      if (Array.isArray(value)) for (const element of value) add(element);
      else add(value);
    }
    return Promise.resolve([...values.values()]);
  }

  async insertOne(document: ViewDocument): Promise<void> {
    if (this.documents.has(document._id)) throw new DuplicateKeyError(this.name, document._id);
    this.put(structuredClone(document), undefined);
  }

  private updateSync(filter: Filter, update: Update, upsert: boolean, many: boolean): UpdateResult {
    const targets = this.matching(filter);
    const selected = many ? targets : targets.slice(0, 1);
    const { $setOnInsert, ...modifier } = update;
    let modifiedCount = 0;
    for (const target of selected) {
      const next = structuredClone(target);
      const changed =
        applySimpleUpdate(next, modifier) ??
        applyUpdate(next, modifier as AnyObject, [], undefined, { cloneMode: 'deep' }).length > 0;
      if (changed) {
        this.put(next, target);
        modifiedCount += 1;
      }
    }
    if (selected.length > 0 || !upsert) {
      return { matchedCount: selected.length, modifiedCount };
    }
    const created: Record<string, unknown> = {};
    for (const [field, value] of Object.entries(filter)) {
      if (!field.startsWith('$') && !field.includes('.') && (scalar(value) || value === null)) {
        created[field] = value;
      }
    }
    const insert = { ...modifier, $set: { ...modifier.$set, ...$setOnInsert } };
    if (applySimpleUpdate(created, insert) === undefined) {
      applyUpdate(created, insert as AnyObject, [], undefined, { cloneMode: 'deep' });
    }
    if (typeof created._id !== 'string') {
      throw new Error(`upsert into ${this.name} needs a string _id in the filter or update`);
    }
    const document = created as ViewDocument;
    if (this.documents.has(document._id)) throw new DuplicateKeyError(this.name, document._id);
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
    const target = this.matching(filter)[0];
    if (target === undefined && !upsert) return { matchedCount: 0, modifiedCount: 0 };
    const next = structuredClone({ ...replacement, _id: target?._id ?? replacement._id });
    if (target === undefined && this.documents.has(next._id)) {
      throw new DuplicateKeyError(this.name, next._id);
    }
    this.put(next, target);
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
    const target = this.matching(filter)[0];
    if (target !== undefined) this.remove(target);
    return Promise.resolve({ deletedCount: target === undefined ? 0 : 1 });
  }

  deleteMany(filter: Filter): Promise<{ deletedCount: number }> {
    const targets = this.matching(filter);
    for (const target of targets) this.remove(target);
    return Promise.resolve({ deletedCount: targets.length });
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
          const target = this.matching(operation.deleteOne.filter)[0];
          if (target !== undefined) this.remove(target);
        }
      } catch (error) {
        if (!(error instanceof DuplicateKeyError)) failures.push(error as Error);
      }
    }
    const failure = failures[0];
    return failure === undefined ? Promise.resolve() : Promise.reject(failure);
  }

  aggregate<R>(pipeline: readonly Record<string, unknown>[]): Promise<R[]> {
    const [first, ...rest] = pipeline;
    let source: ViewDocument[] = [...this.documents.values()];
    let stages = pipeline;
    if (first !== undefined && '$match' in first) {
      source = this.matching(first.$match as Filter);
      stages = rest;
    }
    return Promise.resolve(aggregate(source, [...stages] as AnyObject[], {}) as R[]);
  }

  createIndex(keys: IndexKeys, options: { unique?: boolean } = {}): Promise<void> {
    const fields = Object.keys(keys);
    const unique = options.unique ?? false;
    const exists = this.indexes.some(
      (index) => index.unique === unique && index.fields.join() === fields.join(),
    );
    if (exists) return Promise.resolve();
    const index = new HashIndex(fields, unique);
    this.indexes.push(index);
    for (const document of this.documents.values()) {
      const key = indexKey(index, document);
      if (key !== undefined) index.add(key, document._id);
    }
    return Promise.resolve();
  }
}
