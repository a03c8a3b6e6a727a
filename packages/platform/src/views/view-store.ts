/**
 * The ViewStore port: the subset of MongoDB's collection API the projections and queries use, so
 * one query language serves the embedded store and MongoDB (architecture brief, "Ports").
 * Documents are JSON values with a string `_id`; dates are stored as ISO 8601 strings.
 */

/** A stored document. */
export interface ViewDocument {
  _id: string;
  [field: string]: unknown;
}

/** A MongoDB query filter (`{field: value}`, `$and`, `$or`, `$regex`, `$gt`, …). */
export type Filter = Record<string, unknown>;

/** A MongoDB update document using operators (`$set`, `$unset`, `$inc`, `$setOnInsert`, …). */
export type Update = Record<string, Record<string, unknown>>;

/** Sort specification, `{field: 1 | -1}`, applied in key order. */
export type Sort = Record<string, 1 | -1>;

/** Options of {@link ViewCollection.find}. */
export interface FindOptions {
  sort?: Sort;
  skip?: number;
  limit?: number;
}

/** Result of an update. */
export interface UpdateResult {
  matchedCount: number;
  modifiedCount: number;
  /** `_id` of the document created by an upsert. */
  upsertedId?: string;
}

/** One operation of {@link ViewCollection.bulkWrite}. */
export type BulkOperation =
  | { updateOne: { filter: Filter; update: Update; upsert?: boolean } }
  | { deleteOne: { filter: Filter } }
  | { replaceOne: { filter: Filter; replacement: ViewDocument; upsert?: boolean } };

/** Index key specification, `{field: 1}`. */
export type IndexKeys = Record<string, 1 | -1>;

/** Options of {@link ViewCollection.createIndex}. */
export interface IndexOptions {
  /** Writes that would repeat a key fail with {@link DuplicateKeyError}. */
  unique?: boolean;
  /**
   * The (string) fields are searched by substring: a `$regex` of literal characters (escaped
   * metacharacters), case-insensitive with `$options: 'i'`. The embedded store keeps a trigram
   * index that answers such searches of 3 characters or more without reading every value;
   * MongoDB gets an ordinary index (its unanchored regex reads every key of the index).
   */
  substring?: boolean;
}

/** A collection of view documents. */
export interface ViewCollection<T extends ViewDocument = ViewDocument> {
  findOne(filter: Filter): Promise<T | null>;
  find(filter: Filter, options?: FindOptions): Promise<T[]>;
  countDocuments(filter: Filter): Promise<number>;
  /**
   * Distinct values of the field at `path` among the documents matching `filter`, as MongoDB's
   * `distinct`: an array value contributes its elements; documents without the field none.
   */
  distinct(path: string, filter: Filter): Promise<unknown[]>;
  /** @throws DuplicateKeyError when a document with the same `_id` or unique key exists. */
  insertOne(document: T): Promise<void>;
  /** With `upsert`, a missing document is created from the filter's equality fields. */
  updateOne(filter: Filter, update: Update, options?: { upsert?: boolean }): Promise<UpdateResult>;
  updateMany(filter: Filter, update: Update): Promise<UpdateResult>;
  replaceOne(filter: Filter, replacement: T, options?: { upsert?: boolean }): Promise<UpdateResult>;
  deleteOne(filter: Filter): Promise<{ deletedCount: number }>;
  deleteMany(filter: Filter): Promise<{ deletedCount: number }>;
  /** Unordered bulk write; a duplicate-key failure of one operation does not stop the others. */
  bulkWrite(operations: readonly BulkOperation[]): Promise<void>;
  /** Aggregation with $match, $group, $sort, $limit, $project, $count. */
  aggregate<R = Record<string, unknown>>(
    pipeline: readonly Record<string, unknown>[],
  ): Promise<R[]>;
  /**
   * Creates an index if missing. Projections declare the indexes their queries need: the
   * embedded store answers only filters and sorts on declared fields without reading every
   * document.
   */
  createIndex(keys: IndexKeys, options?: IndexOptions): Promise<void>;
}

/** The view store: named collections. Adapters: embedded SQLite, MongoDB. */
export interface ViewStore {
  collection<T extends ViewDocument = ViewDocument>(name: string): ViewCollection<T>;
  /** Drops a collection and its indexes (used by view rebuilds). */
  drop(name: string): Promise<void>;
  /**
   * Resolves once every write acknowledged so far is durable (survives a crash). Adapters that
   * write through (MongoDB with a journaled write concern) resolve at once.
   */
  flush(): Promise<void>;
  close(): Promise<void>;
}

/** Thrown when a write would repeat an `_id` or a unique index key (MongoDB code 11000). */
export class DuplicateKeyError extends Error {
  readonly code = 11000;
  constructor(collection: string, key: string) {
    super(`duplicate key in ${collection}: ${key}`);
    this.name = 'DuplicateKeyError';
  }
}
