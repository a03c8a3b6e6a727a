import type { DatabaseSync, SQLInputValue, StatementSync } from 'node:sqlite';

import { BoundedCache } from '../bounded-cache.ts';
import { transaction } from '../sqlite/database.ts';
import { DocumentShape } from './document-shape.ts';
import { quoteIdentifier, SqliteViewCollection, tableName } from './sqlite-view-collection.ts';
import type { ViewCollection, ViewDocument, ViewStore } from './view-store.ts';

/** Options of {@link SqliteViewStore}. */
export interface SqliteViewStoreOptions {
  /** Longest time a change waits in memory before it is written, ms (default 50). */
  flushMs?: number;
  /**
   * Bytes of changed documents (as JSON) held in memory before they are written at once
   * (default 4 MiB). Together with SQLite's page cache this bounds the store's memory.
   */
  pendingBytes?: number;
  /** Changed documents held in memory before they are written at once (default 1,000). */
  pendingDocuments?: number;
  /**
   * Fewest matches of a substring search for which a page walks the `_id` order of the index's
   * rows instead of sorting every match (default 2,000).
   */
  walkRows?: number;
}

/** Prepared statements kept per store; the least recently used beyond this are finalised. */
const STATEMENT_CACHE_SIZE = 256;

/**
 * The embedded view store (architecture brief, "Ports"): documents live on disk, one SQLite
 * table per collection (`rid INTEGER PRIMARY KEY, id TEXT UNIQUE, doc TEXT` holding the JSON
 * document), on the platform's database. Nothing is loaded at start; memory is bounded by
 * SQLite's page cache (see `openDatabase`), the changed documents awaiting their write
 * ({@link SqliteViewStoreOptions}) and small per-collection metadata (index definitions, the
 * type masks of {@link DocumentShape}, a few cached counts).
 *
 * Writes are held in memory briefly and written in batched transactions: after `flushMs`, when
 * the held bytes or documents reach their bounds, before any query that SQL answers, and on
 * {@link flush} (the embedded bus calls it before every checkpoint, so a view on disk is never
 * behind the checkpoints of its projections). Collections with a unique secondary index are
 * written through, so a duplicate key fails the write that causes it.
 *
 * Queries follow MongoDB's semantics (mingo is their reference in the tests): filters are
 * translated to SQL over expression indexes declared by the projections (`createIndex`), exactly
 * where the collection's shape proves it; any other condition is tested on the rows SQL selects,
 * read from disk one at a time. `createIndex(keys, {substring: true})` adds an FTS5 trigram index
 * that answers literal `$regex` substring searches of that field.
 */
export class SqliteViewStore implements ViewStore {
  readonly db: DatabaseSync;
  private readonly collections = new Map<string, SqliteViewCollection>();
  private readonly statementCache = new BoundedCache<string, StatementSync>(STATEMENT_CACHE_SIZE);
  private readonly pending = new Map<SqliteViewCollection, Map<string, string | null>>();
  private readonly pendingPaths: [string, string, number][] = [];
  private pendingBytes = 0;
  private pendingCount = 0;
  private flushTimer: NodeJS.Timeout | undefined;
  readonly options: Readonly<Required<SqliteViewStoreOptions>>;
  private readonly dataVersion: StatementSync;
  private seenVersion: number;
  /** Set once {@link seeOtherConnections} asked SQLite in the current turn of the event loop. */
  private checkedThisTurn = false;

  constructor(db: DatabaseSync, options: SqliteViewStoreOptions = {}) {
    this.db = db;
    this.options = {
      flushMs: options.flushMs ?? 50,
      pendingBytes: options.pendingBytes ?? 4 * 1024 * 1024,
      pendingDocuments: options.pendingDocuments ?? 1000,
      walkRows: options.walkRows ?? 2000,
    };
    db.exec(`CREATE TABLE IF NOT EXISTS view_paths (
      collection TEXT NOT NULL, path TEXT NOT NULL, mask INTEGER NOT NULL,
      PRIMARY KEY (collection, path)) WITHOUT ROWID`);
    this.dataVersion = db.prepare('PRAGMA data_version');
    this.seenVersion = this.readDataVersion();
    this.migrateDocumentTable();
  }

  collection<T extends ViewDocument = ViewDocument>(name: string): ViewCollection<T> {
    let collection = this.collections.get(name);
    if (collection === undefined) {
      collection = new SqliteViewCollection(name, this);
      this.collections.set(name, collection);
    }
    return collection as unknown as ViewCollection<T>;
  }

  /** A prepared statement of `sql`, cached. */
  statement(sql: string): StatementSync {
    let statement = this.statementCache.get(sql);
    if (statement === undefined) {
      statement = this.db.prepare(sql);
      this.statementCache.set(sql, statement);
    }
    return statement;
  }

  /** Forgets cached statements that mention `table` (after its schema changed). */
  forgetStatements(table: string): void {
    this.statementCache.deleteWhere((_, sql) => sql.includes(table));
  }

  /** The stored type masks of `collection`. */
  loadShape(collection: string): DocumentShape {
    const rows = this.statement('SELECT path, mask FROM view_paths WHERE collection = ?').all(
      collection,
    ) as { path: string; mask: number }[];
    return new DocumentShape(rows.map((row) => [row.path, row.mask]));
  }

  /**
   * Catches up with the commits of other connections (processes sharing one data folder): when
   * one committed since the last call, the held changes are written and every collection drops
   * what it cached of documents, shapes and indexes. Asked of SQLite once per turn of the event
   * loop: the reads of one turn (a request, a batch of projected events) see the commits made
   * elsewhere before it, as a read transaction would.
   * @returns whether another connection had committed.
   */
  seeOtherConnections(): boolean {
    if (!this.changedElsewhere()) return false;
    this.flushSync();
    for (const collection of this.collections.values()) collection.reload();
    return true;
  }

  /** Whether another connection committed since the last call (once per turn, see above). */
  private changedElsewhere(): boolean {
    if (this.checkedThisTurn) return false;
    this.checkedThisTurn = true;
    setImmediate(() => {
      this.checkedThisTurn = false;
    });
    const version = this.readDataVersion();
    if (version === this.seenVersion) return false;
    this.seenVersion = version;
    return true;
  }

  private readDataVersion(): number {
    return (this.dataVersion.get() as { data_version: number }).data_version;
  }

  /** Stores grown type masks of `collection` inside the caller's transaction. */
  writePaths(collection: string, grown: readonly [string, number][]): void {
    const putPath = this.statement(`INSERT INTO view_paths (collection, path, mask) VALUES (?, ?, ?)
      ON CONFLICT (collection, path) DO UPDATE SET mask = mask | excluded.mask`);
    for (const [path, mask] of grown) putPath.run(collection, path, mask);
  }

  /** A changed document of `collection` awaiting its write (undefined: none; null: removed). */
  held(collection: SqliteViewCollection, id: string): string | null | undefined {
    return this.pending.get(collection)?.get(id);
  }

  /**
   * Records a changed (`json`) or removed (null) document and the paths whose type masks grew;
   * written by the next flush, at once when the held bytes or documents reach their bounds.
   */
  stage(
    collection: SqliteViewCollection,
    id: string,
    json: string | null,
    grown: readonly [string, number][],
  ): void {
    let changes = this.pending.get(collection);
    if (changes === undefined) {
      changes = new Map();
      this.pending.set(collection, changes);
    }
    const previous = changes.get(id);
    if (previous === undefined) this.pendingCount += 1;
    else if (previous !== null) this.pendingBytes -= previous.length;
    changes.set(id, json);
    if (json !== null) this.pendingBytes += json.length;
    for (const [path, mask] of grown) this.pendingPaths.push([collection.name, path, mask]);
    if (
      this.pendingBytes >= this.options.pendingBytes ||
      this.pendingCount >= this.options.pendingDocuments
    ) {
      this.flushSync();
    } else {
      this.flushTimer ??= setTimeout(() => {
        this.flushTimer = undefined;
        this.flushSync();
      }, this.options.flushMs).unref();
    }
  }

  /**
   * Runs `work` in a transaction after the held changes, for writes that must fail at once
   * (unique indexes) and for schema changes.
   */
  writeThrough<T>(work: () => T): T {
    return transaction(this.db, () => {
      this.writePending();
      return work();
    });
  }

  /** Writes every held change to disk in one transaction. */
  flush(): Promise<void> {
    this.flushSync();
    return Promise.resolve();
  }

  /** Writes every held change when `collection` has some (one transaction for all, as a flush). */
  flushHeld(collection: SqliteViewCollection): void {
    if ((this.pending.get(collection)?.size ?? 0) > 0) this.flushSync();
  }

  /** Synchronous {@link flush}. */
  flushSync(): void {
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    if (this.pendingCount === 0 && this.pendingPaths.length === 0) return;
    transaction(this.db, () => {
      this.writePending();
    });
  }

  /** Writes the held changes inside the caller's transaction, then forgets them. */
  private writePending(): void {
    if (this.pendingCount === 0 && this.pendingPaths.length === 0) return;
    for (const [collection, path, mask] of this.pendingPaths) {
      this.writePaths(collection, [[path, mask]]);
    }
    for (const [collection, changes] of this.pending) {
      for (const [id, json] of changes) collection.write(id, json);
    }
    this.pending.clear();
    this.pendingPaths.length = 0;
    this.pendingBytes = 0;
    this.pendingCount = 0;
  }

  /** Runs `sql` (DDL) after writing the held changes. */
  exec(sql: string, ...params: SQLInputValue[]): void {
    this.writeThrough(() => {
      if (params.length === 0) this.db.exec(sql);
      else this.db.prepare(sql).run(...params);
    });
  }

  drop(name: string): Promise<void> {
    this.flushSync();
    const collection = this.collections.get(name);
    const table = tableName(name);
    const prefix = `${table}:substring:`;
    // The collection's table (its indexes go with it), its trigram indexes and their rows tables.
    const dependents = this.db
      .prepare(
        `SELECT name FROM sqlite_master WHERE type = 'table' AND (name = ? OR (substr(name, 1, ?) = ?
          AND (sql LIKE 'CREATE VIRTUAL TABLE%' OR name LIKE '%:rows')))`,
      )
      .all(table, prefix.length, prefix) as { name: string }[];
    // A view holds what its projection made of the log, never an erased contact (erasures
    // remove their documents with secure_delete at once): its pages are freed, not overwritten.
    this.db.exec('PRAGMA secure_delete = OFF');
    try {
      transaction(this.db, () => {
        for (const { name: dependent } of dependents) {
          this.db.exec(`DROP TABLE IF EXISTS ${quoteIdentifier(dependent)}`);
        }
        this.db.prepare('DELETE FROM view_paths WHERE collection = ?').run(name);
      });
    } finally {
      this.db.exec('PRAGMA secure_delete = ON');
    }
    this.forgetStatements(table);
    collection?.reset();
    return Promise.resolve();
  }

  close(): Promise<void> {
    this.flushSync();
    this.statementCache.clear();
    return Promise.resolve();
  }

  /**
   * Moves documents of the earlier single-table layout (`view_documents`, documents kept in
   * memory) into the per-collection tables, once.
   */
  private migrateDocumentTable(): void {
    const old = this.db
      .prepare("SELECT 1 AS found FROM sqlite_master WHERE type = 'table' AND name = ?")
      .get('view_documents');
    if (old === undefined) return;
    const names = this.db.prepare('SELECT DISTINCT collection FROM view_documents').all() as {
      collection: string;
    }[];
    const read = this.db.prepare('SELECT document FROM view_documents WHERE collection = ?');
    for (const { collection: name } of names) {
      const collection = this.collection(name) as unknown as SqliteViewCollection;
      for (const row of read.iterate(name)) {
        collection.restore(JSON.parse((row as { document: string }).document) as ViewDocument);
      }
    }
    this.flushSync();
    this.db.exec('DROP TABLE view_documents');
  }
}
