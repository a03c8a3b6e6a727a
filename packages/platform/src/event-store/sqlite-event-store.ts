import { EventEmitter } from 'node:events';
import type { DatabaseSync, StatementSync } from 'node:sqlite';

import { BoundedCache } from '../bounded-cache.ts';
import { newId } from '../ids.ts';
import { transaction } from '../sqlite/database.ts';
import { type EventRow, LogReader, type OpenedData } from './log-reader.ts';
import { ReadAhead } from './read-ahead.ts';
import { sealWith, type SubjectKey, SubjectKeys } from './subject-keys.ts';
import {
  type AppendListener,
  type AppendNotice,
  type AppendResult,
  DuplicateEventError,
  type EventStore,
  type ReadAllOptions,
  type RecordedEvent,
  revisionMatches,
  type StreamAppend,
  streamCategory,
  WrongExpectedRevisionError,
} from './event-store.ts';

/** What one append wrote: new revisions, positions of its first and last event, subject keys. */
interface Written {
  /** Opened data of the sealed events written, by position (see `opened`). */
  sealed: [number, OpenedData][];
  revisions: Record<string, number>;
  position: number;
  first: number;
  keys: [string, SubjectKey][];
}

/**
 * Replaces the `streams` table of earlier versions (every stream's revision, written with every
 * append) by `deleted_streams` (only streams whose events were deleted): a stream's revision is
 * its last event's. Once.
 */
function migrateStreamsTable(db: DatabaseSync): void {
  const old = db
    .prepare("SELECT 1 AS found FROM sqlite_master WHERE type = 'table' AND name = 'streams'")
    .get();
  if (old === undefined) return;
  transaction(db, () => {
    db.exec(`INSERT OR REPLACE INTO deleted_streams (stream_id, revision)
      SELECT s.stream_id, s.revision FROM streams AS s
      WHERE NOT EXISTS (SELECT 1 FROM events AS e WHERE e.stream_id = s.stream_id)`);
    db.exec('DROP TABLE streams');
  });
}

/** Sealed events kept opened in memory (see `opened`). */
const OPENED_CACHE_SIZE = 8192;

/** Delay before the write-ahead log is truncated after an erasure, ms. */
const ERASURE_CHECKPOINT_MS = 1000;

/**
 * Embedded event store on SQLite: one `events` table (position = rowid; a stream's revision is
 * its last event's) and the revisions of streams whose events were deleted (`deleted_streams`). A multi-stream append is atomic (one savepoint of a `BEGIN IMMEDIATE`
 * transaction) and an acknowledged append survives `kill -9` (WAL).
 *
 * Data of events with a `metadata.subjectId` is stored sealed under that subject's key
 * ({@link SubjectKeys}); {@link eraseSubject} destroys the key. Erasures and stream deletions
 * are followed (after 1 s, and at close) by a truncating WAL checkpoint, so with SQLite's
 * `secure_delete` no erased bytes stay in the database files.
 */
export class SqliteEventStore implements EventStore {
  private readonly db: DatabaseSync;
  private readonly keys: SubjectKeys;
  /**
   * Recently opened sealed data by position: several consumer groups read the same new events
   * one after another, and each would otherwise decrypt them again.
   */
  private readonly opened = new BoundedCache<number, OpenedData>(OPENED_CACHE_SIZE);
  private readonly reader: LogReader;
  /** Batches read ahead on a thread of their own; none for `:memory:`. */
  readonly readAhead: ReadAhead | undefined;
  /** Erasures and stream deletions made through this store (see {@link ReadAhead}). */
  private epoch = 0;
  private checkpointTimer: NodeJS.Timeout | undefined;
  private readonly emitter = new EventEmitter();
  private readonly statements: {
    revision: StatementSync;
    deletedRevision: StatementSync;
    markDeleted: StatementSync;
    insert: StatementSync;
    readStream: StatementSync;
    readStreamLimited: StatementSync;
    head: StatementSync;
    hasId: StatementSync;
    savepoint: StatementSync;
    release: StatementSync;
    rollbackTo: StatementSync;
    deleteStream: StatementSync;
  };
  private queue: {
    streams: readonly StreamAppend[];
    resolve: (result: AppendResult) => void;
    reject: (error: unknown) => void;
  }[] = [];

  /**
   * @param options.readAhead read batches of a reader catching up on a thread of their own
   *   ({@link ReadAhead}; default true, never for `:memory:`).
   */
  constructor(db: DatabaseSync, { readAhead = true }: { readAhead?: boolean } = {}) {
    this.db = db;
    this.emitter.setMaxListeners(0);
    db.exec(`CREATE TABLE IF NOT EXISTS events (
        position INTEGER PRIMARY KEY AUTOINCREMENT,
        id TEXT NOT NULL UNIQUE,
        stream_id TEXT NOT NULL,
        category TEXT NOT NULL,
        revision INTEGER NOT NULL,
        type TEXT NOT NULL,
        schema_version INTEGER NOT NULL,
        data TEXT NOT NULL,
        metadata TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        UNIQUE (stream_id, revision));
      CREATE INDEX IF NOT EXISTS events_by_category ON events (category, position);
      CREATE TABLE IF NOT EXISTS deleted_streams (
        stream_id TEXT PRIMARY KEY,
        revision INTEGER NOT NULL) WITHOUT ROWID;`);
    migrateStreamsTable(db);
    this.statements = {
      revision: db.prepare(
        'SELECT revision FROM events WHERE stream_id = ? ORDER BY revision DESC LIMIT 1',
      ),
      deletedRevision: db.prepare('SELECT revision FROM deleted_streams WHERE stream_id = ?'),
      markDeleted: db.prepare(`INSERT INTO deleted_streams (stream_id, revision) VALUES (?, ?)
        ON CONFLICT (stream_id) DO UPDATE SET revision = excluded.revision`),
      insert: db.prepare(`INSERT INTO events
        (id, stream_id, category, revision, type, schema_version, data, metadata, created_at)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`),
      // A range of revisions rather than `LIMIT ?` (a stream's revisions have no gaps): a bound
      // LIMIT costs several times the look-up itself.
      readStream: db.prepare(
        'SELECT * FROM events WHERE stream_id = ? AND revision >= ? AND revision < ? ORDER BY revision',
      ),
      readStreamLimited: db.prepare(
        'SELECT * FROM events WHERE stream_id = ? AND revision >= ? ORDER BY revision LIMIT ?',
      ),
      head: db.prepare('SELECT COALESCE(MAX(position), 0) AS head FROM events'),
      hasId: db.prepare('SELECT 1 AS found FROM events WHERE id = ?'),
      savepoint: db.prepare('SAVEPOINT append'),
      release: db.prepare('RELEASE append'),
      rollbackTo: db.prepare('ROLLBACK TO append'),
      deleteStream: db.prepare('DELETE FROM events WHERE stream_id = ?'),
    };
    this.keys = new SubjectKeys(db);
    this.reader = new LogReader(db, this.keys, this.opened);
    const path = db.location();
    this.readAhead = path === null || !readAhead ? undefined : new ReadAhead(path);
  }

  /**
   * Appends are committed in groups: the appends requested within one turn of the event loop
   * share one transaction (each in its own savepoint, so one append's failure touches no other),
   * which saves a commit per append under concurrent load. Each promise settles after the commit.
   */
  append(streams: readonly StreamAppend[]): Promise<AppendResult> {
    return new Promise((resolve, reject) => {
      this.queue.push({ streams, resolve, reject });
      if (this.queue.length === 1) {
        setImmediate(() => {
          this.commitQueue();
        });
      }
    });
  }

  /** Synchronous single {@link append}, in its own transaction. */
  appendSync(streams: readonly StreamAppend[]): AppendResult {
    const written = transaction(this.db, () => this.write(streams, Date.now()));
    this.committed(written);
    this.notify(streams, written);
    return { revisions: written.revisions, position: written.position };
  }

  private commitQueue(): void {
    const batch = this.queue;
    this.queue = [];
    if (batch.length === 0) return;
    const now = Date.now();
    const outcomes: ({ written: Written } | { error: unknown })[] = [];
    try {
      transaction(this.db, () => {
        for (const { streams } of batch) {
          this.statements.savepoint.run();
          try {
            outcomes.push({ written: this.write(streams, now) });
            this.statements.release.run();
          } catch (error) {
            this.statements.rollbackTo.run();
            this.statements.release.run();
            outcomes.push({ error });
          }
        }
      });
    } catch (error) {
      for (const request of batch) request.reject(error);
      return;
    }
    for (const [index, request] of batch.entries()) {
      const outcome = outcomes[index];
      if (outcome === undefined) continue;
      if ('error' in outcome) {
        request.reject(outcome.error);
      } else {
        this.committed(outcome.written);
        this.notify(request.streams, outcome.written);
        request.resolve({
          revisions: outcome.written.revisions,
          position: outcome.written.position,
        });
      }
    }
  }

  /**
   * After the commit of `written`: caches its subject keys, and the data of its sealed events as
   * opened (the consumers about to read them need not open them again).
   */
  private committed(written: Written): void {
    for (const [subjectId, key] of written.keys) this.keys.remember(subjectId, key);
    for (const [position, opened] of written.sealed) this.opened.set(position, opened);
  }

  private notify(streams: readonly StreamAppend[], written: Written): void {
    if (written.position === 0) return;
    const categories = new Set(streams.map(({ streamId }) => streamCategory(streamId)));
    const notice: AppendNotice = { first: written.first, last: written.position, categories };
    this.emitter.emit('append', notice);
  }

  /** Writes one append inside the caller's transaction. */
  private write(streams: readonly StreamAppend[], now: number): Written {
    const revisions: Record<string, number> = {};
    let position = 0;
    let first = 0;
    const keys: [string, SubjectKey][] = [];
    const sealed: Written['sealed'] = [];
    for (const { streamId, expectedRevision, events } of streams) {
      let revision = this.revisionOf(streamId);
      if (!revisionMatches(expectedRevision, revision)) {
        throw new WrongExpectedRevisionError(streamId, expectedRevision, revision);
      }
      const category = streamCategory(streamId);
      for (const event of events) {
        const id = event.id ?? newId(now);
        if (event.id !== undefined && this.statements.hasId.get(id) !== undefined) {
          throw new DuplicateEventError(id);
        }
        revision += 1;
        const json = JSON.stringify(event.data);
        let data = json;
        const subjectId = event.metadata?.subjectId;
        let opened: { subjectId: string; json: string } | undefined;
        if (subjectId !== undefined) {
          const key = this.keys.obtain(subjectId);
          keys.push([subjectId, key]);
          data = key === 'erased' ? 'null' : JSON.stringify(sealWith(key, json));
          if (key !== 'erased') opened = { subjectId, json };
        }
        const inserted = this.statements.insert.run(
          id,
          streamId,
          category,
          revision,
          event.type,
          event.schemaVersion ?? 1,
          data,
          JSON.stringify(event.metadata ?? {}),
          now,
        );
        position = Number(inserted.lastInsertRowid);
        if (first === 0) first = position;
        if (opened !== undefined) sealed.push([position, opened]);
      }
      revisions[streamId] = revision;
    }
    return { revisions, position, first, keys, sealed };
  }

  /**
   * Current revision of `streamId`: its last event's, else the revision it had when its events
   * were deleted, else -1 (no stream).
   */
  private revisionOf(streamId: string): number {
    const last = this.statements.revision.get(streamId) as { revision: number } | undefined;
    if (last !== undefined) return last.revision;
    const deleted = this.statements.deletedRevision.get(streamId) as
      { revision: number } | undefined;
    return deleted?.revision ?? -1;
  }

  readStream(streamId: string, fromRevision = 0, maxCount = -1): Promise<RecordedEvent[]> {
    const to = maxCount < 0 ? Number.MAX_SAFE_INTEGER : fromRevision + maxCount;
    let rows = this.statements.readStream.all(streamId, fromRevision, to) as unknown as EventRow[];
    // A stream whose events were deleted continues after the revision it had: its first
    // revisions are missing, so a range may hold fewer events than the count asked for.
    if (
      maxCount >= 0 &&
      rows.length < maxCount &&
      this.statements.deletedRevision.get(streamId) !== undefined
    ) {
      rows = this.statements.readStreamLimited.all(
        streamId,
        fromRevision,
        maxCount,
      ) as unknown as EventRow[];
    }
    return Promise.resolve(this.reader.toRecordedAll(rows));
  }

  /**
   * Events in position order (see the port). A reader that got a full batch is behind the head:
   * the next batch is read ahead meanwhile ({@link ReadAhead}), and answers its next read when
   * it is full and no erasure or stream deletion came in between.
   */
  async readAll({ after, categories, limit = 500 }: ReadAllOptions): Promise<RecordedEvent[]> {
    const options = { after, limit, ...(categories === undefined ? {} : { categories }) };
    const epoch = this.epoch;
    const ahead = this.readAhead?.take(options, epoch);
    let events = ahead === undefined ? undefined : await ahead;
    if (events?.length !== limit || this.epoch !== epoch) {
      events = this.reader.readAll(options);
    } else if (this.readAhead !== undefined) {
      this.readAhead.taken += 1;
    }
    const last = events[events.length - 1];
    if (events.length === limit && last !== undefined && limit > 0) {
      this.readAhead?.request({ ...options, after: last.position }, this.epoch);
    }
    return events;
  }

  headPosition(): Promise<number> {
    return Promise.resolve((this.statements.head.get() as { head: number }).head);
  }

  eraseSubject(subjectId: string): Promise<void> {
    this.epoch += 1;
    this.keys.erase(subjectId);
    this.opened.deleteWhere((opened) => opened.subjectId === subjectId);
    this.scheduleCheckpoint();
    return Promise.resolve();
  }

  deleteStream(streamId: string): Promise<void> {
    const revision = this.revisionOf(streamId);
    this.epoch += 1;
    transaction(this.db, () => {
      if (revision >= 0) this.statements.markDeleted.run(streamId, revision);
      this.statements.deleteStream.run(streamId);
    });
    this.scheduleCheckpoint();
    return Promise.resolve();
  }

  private scheduleCheckpoint(): void {
    this.checkpointTimer ??= setTimeout(() => {
      this.checkpointTimer = undefined;
      this.truncateLog();
    }, ERASURE_CHECKPOINT_MS).unref();
  }

  /** Copies the WAL into the database file and truncates it (a no-op for `:memory:`). */
  truncateLog(): void {
    clearTimeout(this.checkpointTimer);
    this.checkpointTimer = undefined;
    if (this.db.isOpen) this.db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
  }

  onAppend(listener: AppendListener): () => void {
    this.emitter.on('append', listener);
    return () => this.emitter.off('append', listener);
  }

  async close(): Promise<void> {
    this.commitQueue();
    clearTimeout(this.checkpointTimer);
    this.checkpointTimer = undefined;
    this.emitter.removeAllListeners();
    await this.readAhead?.close();
  }
}
