import {
  type AnyBulkWriteOperation,
  type Collection,
  type Db,
  type Filter as DriverFilter,
  MongoBulkWriteError,
  MongoClient,
  type MongoClientOptions,
  MongoServerError,
  type WriteError,
  type WriteConcernSettings,
} from 'mongodb';

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
  type ViewStore,
} from './view-store.ts';

/** MongoDB's error code of a write that would repeat an `_id` or a unique index key. */
const DUPLICATE_KEY = 11000;
/** MongoDB's error codes of an index that exists with other options or another name. */
const INDEX_CONFLICTS = new Set([85, 86]);
/** MongoDB's error code of a missing collection (dropping one before MongoDB 7.0). */
const NAMESPACE_NOT_FOUND = 26;

/**
 * Write concern of every write (MongoDB manual, "Write Concern"): acknowledged by a majority of
 * the replica set and journaled by default, so an acknowledged write survives a crash and a
 * failover. `wtimeoutMS` bounds the wait for the majority, ms.
 */
export const DEFAULT_VIEW_WRITE_CONCERN: WriteConcernSettings = { w: 'majority', journal: true };

/** Options of {@link MongoViewStore.connect}. */
export interface MongoViewStoreOptions {
  /** Write concern of every write; default {@link DEFAULT_VIEW_WRITE_CONCERN}. */
  writeConcern?: WriteConcernSettings;
  /** Options passed to the driver's `MongoClient` (timeouts, pool size, TLS). */
  client?: MongoClientOptions;
}

/** Whether `error` is a server error with MongoDB's duplicate key code 11000. */
function isServerDuplicateKey(error: unknown): error is MongoServerError {
  return error instanceof MongoServerError && error.code === DUPLICATE_KEY;
}

/** The port's {@link DuplicateKeyError} for a driver error with code 11000; other errors as is. */
function portError(collection: string, error: unknown): unknown {
  if (!isServerDuplicateKey(error)) return error;
  const key =
    error.keyValue === undefined ? error.message : JSON.stringify(error.keyValue as object);
  const mapped = new DuplicateKeyError(collection, key);
  mapped.cause = error;
  return mapped;
}

/** The port's result of a driver update result. */
function updateResult(result: {
  matchedCount: number;
  modifiedCount: number;
  upsertedId: unknown;
}): UpdateResult {
  const { matchedCount, modifiedCount, upsertedId } = result;
  if (upsertedId === null || upsertedId === undefined) return { matchedCount, modifiedCount };
  return {
    matchedCount,
    modifiedCount,
    upsertedId: typeof upsertedId === 'string' ? upsertedId : JSON.stringify(upsertedId),
  };
}

/**
 * {@link ViewStore} on MongoDB through the official driver (distributed mode, architecture brief
 * "Ports"). Every port method maps to the driver method of the same name; filters, updates and
 * aggregation pipelines pass through unchanged, so MongoDB evaluates them. Writes use a majority,
 * journaled write concern by default, so {@link flush} has nothing to wait for. Duplicate-key
 * failures (code 11000) become the port's {@link DuplicateKeyError}. Documents keep ISO 8601
 * strings for dates (no BSON dates), and fields set to `undefined` are left out, as in JSON.
 * Unique indexes follow MongoDB: a document missing an indexed field counts as `null` there.
 */
export class MongoViewStore implements ViewStore {
  /** The database holding the collections. */
  readonly db: Db;
  /** The client, when this store created it (and so closes it). */
  private readonly ownClient: MongoClient | undefined;

  /**
   * A store on an existing database handle; {@link close} leaves its client open. Pass a handle
   * with a write concern (`client.db(name, {writeConcern})`) to set one.
   */
  constructor(db: Db, ownClient?: MongoClient) {
    this.db = db;
    this.ownClient = ownClient;
  }

  /**
   * Connects to the MongoDB server at `url` (a `mongodb://` or `mongodb+srv://` connection
   * string); the database is the URL's path (MongoDB's default `test` when it has none).
   * {@link close} closes the client created here.
   * @throws the driver's MongoServerSelectionError when no server answers within the client's
   *   `serverSelectionTimeoutMS` (default 30 s), or a parse error for a malformed URL.
   */
  static async connect(url: string, options: MongoViewStoreOptions = {}): Promise<MongoViewStore> {
    const client = new MongoClient(url, { ignoreUndefined: true, ...options.client });
    await client.connect();
    const db = client.db(undefined, {
      writeConcern: options.writeConcern ?? DEFAULT_VIEW_WRITE_CONCERN,
    });
    return new MongoViewStore(db, client);
  }

  collection<T extends ViewDocument = ViewDocument>(name: string): ViewCollection<T> {
    return new MongoViewCollection<T>(this.db.collection<T>(name));
  }

  /** Drops the collection and its indexes; a missing collection is not an error. */
  async drop(name: string): Promise<void> {
    try {
      await this.db.collection(name).drop();
    } catch (error) {
      const missing =
        error instanceof MongoServerError &&
        (error.code === NAMESPACE_NOT_FOUND || error.message === 'ns not found');
      if (!missing) throw error;
    }
  }

  /** Resolves at once: every write was acknowledged under the store's write concern. */
  flush(): Promise<void> {
    return Promise.resolve();
  }

  /** Closes the client when {@link connect} created it; otherwise does nothing. */
  async close(): Promise<void> {
    await this.ownClient?.close();
  }
}

/** One MongoDB collection behind the {@link ViewCollection} port. */
class MongoViewCollection<T extends ViewDocument> implements ViewCollection<T> {
  private readonly collection: Collection<T>;

  constructor(collection: Collection<T>) {
    this.collection = collection;
  }

  private get name(): string {
    return this.collection.collectionName;
  }

  async findOne(filter: Filter): Promise<T | null> {
    return (await this.collection.findOne(filter as DriverFilter<T>)) as T | null;
  }

  async find(filter: Filter, options: FindOptions = {}): Promise<T[]> {
    const cursor = this.collection.find(filter as DriverFilter<T>);
    if (options.sort !== undefined) cursor.sort(options.sort);
    if (options.skip !== undefined) cursor.skip(options.skip);
    if (options.limit !== undefined) cursor.limit(options.limit);
    return (await cursor.toArray()) as T[];
  }

  countDocuments(filter: Filter): Promise<number> {
    return this.collection.countDocuments(filter as DriverFilter<T>);
  }

  distinct(path: string, filter: Filter): Promise<unknown[]> {
    return this.collection.distinct(path, filter as DriverFilter<T>);
  }

  async insertOne(document: T): Promise<void> {
    try {
      // A shallow copy: the driver would otherwise write into the caller's object.
      await this.collection.insertOne({ ...document } as Parameters<Collection<T>['insertOne']>[0]);
    } catch (error) {
      throw portError(this.name, error);
    }
  }

  async updateOne(
    filter: Filter,
    update: Update,
    options: { upsert?: boolean } = {},
  ): Promise<UpdateResult> {
    try {
      return updateResult(
        await this.collection.updateOne(filter as DriverFilter<T>, update, {
          upsert: options.upsert ?? false,
        }),
      );
    } catch (error) {
      throw portError(this.name, error);
    }
  }

  async updateMany(filter: Filter, update: Update): Promise<UpdateResult> {
    try {
      return updateResult(await this.collection.updateMany(filter as DriverFilter<T>, update));
    } catch (error) {
      throw portError(this.name, error);
    }
  }

  async replaceOne(
    filter: Filter,
    replacement: T,
    options: { upsert?: boolean } = {},
  ): Promise<UpdateResult> {
    try {
      const result = await this.collection.replaceOne(filter as DriverFilter<T>, replacement, {
        upsert: options.upsert ?? false,
      });
      return updateResult(result);
    } catch (error) {
      throw portError(this.name, error);
    }
  }

  async deleteOne(filter: Filter): Promise<{ deletedCount: number }> {
    const { deletedCount } = await this.collection.deleteOne(filter as DriverFilter<T>);
    return { deletedCount };
  }

  async deleteMany(filter: Filter): Promise<{ deletedCount: number }> {
    const { deletedCount } = await this.collection.deleteMany(filter as DriverFilter<T>);
    return { deletedCount };
  }

  /**
   * One unordered bulk write (`ordered: false`): every operation runs even when others fail.
   * Duplicate-key failures are absorbed, as in the embedded store (a projection's guarded upsert
   * of a document that is already newer fails that way); the first other failure is thrown after
   * all operations ran, as the driver's MongoBulkWriteError (or a write concern error).
   */
  async bulkWrite(operations: readonly BulkOperation[]): Promise<void> {
    if (operations.length === 0) return;
    try {
      await this.collection.bulkWrite(operations as unknown as AnyBulkWriteOperation<T>[], {
        ordered: false,
      });
    } catch (error) {
      if (!(error instanceof MongoBulkWriteError)) throw error;
      const writeErrors = ([] as WriteError[]).concat(error.writeErrors);
      const onlyDuplicates =
        writeErrors.length > 0 &&
        writeErrors.every((writeError) => writeError.code === DUPLICATE_KEY) &&
        error.writeConcernError === undefined;
      if (!onlyDuplicates) throw error;
    }
  }

  async aggregate<R = Record<string, unknown>>(
    pipeline: readonly Record<string, unknown>[],
  ): Promise<R[]> {
    return (await this.collection.aggregate([...pipeline]).toArray()) as R[];
  }

  /**
   * Creates the index unless one on the same keys with the same uniqueness exists (whatever
   * its name). An index on the same keys with the other uniqueness is a conflict, thrown as the
   * driver's MongoServerError (code 85 or 86). A `substring` index is an ordinary index here.
   */
  async createIndex(keys: IndexKeys, options: IndexOptions = {}): Promise<void> {
    const unique = options.unique ?? false;
    try {
      await this.collection.createIndex(keys, unique ? { unique } : {}, undefined);
    } catch (error) {
      if (!(error instanceof MongoServerError && INDEX_CONFLICTS.has(Number(error.code)))) {
        throw error;
      }
      const wanted = JSON.stringify(keys);
      const existing = (await this.collection.listIndexes().toArray()) as {
        key?: unknown;
        unique?: unknown;
      }[];
      const same = existing.some(
        (index) => JSON.stringify(index.key) === wanted && (index.unique === true) === unique,
      );
      if (!same) throw error;
    }
  }
}
