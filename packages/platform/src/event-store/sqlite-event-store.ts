import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { DatabaseSync, StatementSync } from 'node:sqlite';

import { transaction } from '../sqlite/database.ts';
import {
  type AppendListener,
  type AppendNotice,
  type AppendResult,
  DuplicateEventError,
  type EventMetadata,
  type EventStore,
  type ReadAllOptions,
  type RecordedEvent,
  revisionMatches,
  type StreamAppend,
  streamCategory,
  WrongExpectedRevisionError,
} from './event-store.ts';

interface EventRow {
  position: number;
  id: string;
  stream_id: string;
  revision: number;
  type: string;
  schema_version: number;
  data: string;
  metadata: string;
  created_at: number;
}

function toRecorded(row: EventRow): RecordedEvent {
  return {
    id: row.id,
    streamId: row.stream_id,
    revision: row.revision,
    position: row.position,
    type: row.type,
    schemaVersion: row.schema_version,
    data: JSON.parse(row.data) as unknown,
    metadata: JSON.parse(row.metadata) as EventMetadata,
    createdAt: new Date(row.created_at).toISOString(),
  };
}

/**
 * Embedded event store on SQLite: one `events` table (position = rowid) and a `streams` table of
 * current revisions. An append is one `BEGIN IMMEDIATE` transaction, so a multi-stream append is
 * atomic and an acknowledged append survives `kill -9` (WAL).
 */
export class SqliteEventStore implements EventStore {
  private readonly db: DatabaseSync;
  private readonly emitter = new EventEmitter();
  private readonly byCategories = new Map<string, StatementSync>();
  private readonly statements: {
    revision: StatementSync;
    insert: StatementSync;
    upsertStream: StatementSync;
    readStream: StatementSync;
    readAll: StatementSync;
    head: StatementSync;
    hasId: StatementSync;
  };

  constructor(db: DatabaseSync) {
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
      CREATE TABLE IF NOT EXISTS streams (
        stream_id TEXT PRIMARY KEY,
        revision INTEGER NOT NULL) WITHOUT ROWID;`);
    this.statements = {
      revision: db.prepare('SELECT revision FROM streams WHERE stream_id = ?'),
      insert: db.prepare(`INSERT INTO events
        (id, stream_id, category, revision, type, schema_version, data, metadata, created_at)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`),
      upsertStream: db.prepare(`INSERT INTO streams (stream_id, revision) VALUES (?, ?)
        ON CONFLICT (stream_id) DO UPDATE SET revision = excluded.revision`),
      readStream: db.prepare(
        'SELECT * FROM events WHERE stream_id = ? AND revision >= ? ORDER BY revision',
      ),
      readAll: db.prepare('SELECT * FROM events WHERE position > ? ORDER BY position LIMIT ?'),
      head: db.prepare('SELECT COALESCE(MAX(position), 0) AS head FROM events'),
      hasId: db.prepare('SELECT 1 AS found FROM events WHERE id = ?'),
    };
  }

  async append(streams: readonly StreamAppend[]): Promise<AppendResult> {
    return this.appendSync(streams);
  }

  /** Synchronous {@link append}; the embedded adapters use it to record an outcome at once. */
  appendSync(streams: readonly StreamAppend[]): AppendResult {
    const now = Date.now();
    const result = transaction(this.db, () => {
      const revisions: Record<string, number> = {};
      let position = 0;
      let first = 0;
      for (const { streamId, expectedRevision, events } of streams) {
        const row = this.statements.revision.get(streamId) as { revision: number } | undefined;
        let revision = row?.revision ?? -1;
        if (!revisionMatches(expectedRevision, revision)) {
          throw new WrongExpectedRevisionError(streamId, expectedRevision, revision);
        }
        const category = streamCategory(streamId);
        for (const event of events) {
          const id = event.id ?? randomUUID();
          if (event.id !== undefined && this.statements.hasId.get(id) !== undefined) {
            throw new DuplicateEventError(id);
          }
          revision += 1;
          const inserted = this.statements.insert.run(
            id,
            streamId,
            category,
            revision,
            event.type,
            event.schemaVersion ?? 1,
            JSON.stringify(event.data),
            JSON.stringify(event.metadata ?? {}),
            now,
          );
          position = Number(inserted.lastInsertRowid);
          if (first === 0) first = position;
        }
        if (events.length > 0) this.statements.upsertStream.run(streamId, revision);
        revisions[streamId] = revision;
      }
      return { revisions, position, first };
    });
    if (result.position > 0) {
      const categories = new Set(streams.map(({ streamId }) => streamCategory(streamId)));
      const notice: AppendNotice = { first: result.first, last: result.position, categories };
      this.emitter.emit('append', notice);
    }
    return { revisions: result.revisions, position: result.position };
  }

  readStream(streamId: string, fromRevision = 0): Promise<RecordedEvent[]> {
    const rows = this.statements.readStream.all(streamId, fromRevision) as unknown as EventRow[];
    return Promise.resolve(rows.map(toRecorded));
  }

  readAll({ after, categories, limit = 500 }: ReadAllOptions): Promise<RecordedEvent[]> {
    let rows: EventRow[];
    if (categories === undefined) {
      rows = this.statements.readAll.all(after, limit) as unknown as EventRow[];
    } else if (categories.length === 0) {
      rows = [];
    } else {
      const cacheKey = categories.join('\u0000');
      let statement = this.byCategories.get(cacheKey);
      if (statement === undefined) {
        const marks = categories.map(() => '?').join(', ');
        statement = this.db.prepare(
          `SELECT * FROM events WHERE category IN (${marks}) AND position > ?
           ORDER BY position LIMIT ?`,
        );
        this.byCategories.set(cacheKey, statement);
      }
      rows = statement.all(...categories, after, limit) as unknown as EventRow[];
    }
    return Promise.resolve(rows.map(toRecorded));
  }

  headPosition(): Promise<number> {
    return Promise.resolve((this.statements.head.get() as { head: number }).head);
  }

  onAppend(listener: AppendListener): () => void {
    this.emitter.on('append', listener);
    return () => this.emitter.off('append', listener);
  }

  close(): Promise<void> {
    this.emitter.removeAllListeners();
    return Promise.resolve();
  }
}
