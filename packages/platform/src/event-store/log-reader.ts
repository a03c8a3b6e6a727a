import type { DatabaseSync, StatementSync } from 'node:sqlite';

import type { BoundedCache } from '../bounded-cache.ts';
import type { EventMetadata, ReadAllOptions, RecordedEvent } from './event-store.ts';
import { openWith, type SubjectKeys } from './subject-keys.ts';

/** A row of the embedded event store's `events` table. */
export interface EventRow {
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

/** Data of a sealed event, opened: the subject it is about and its JSON text. */
export interface OpenedData {
  subjectId: string;
  json: string;
}

/** The subject id in an event's metadata JSON (ids hold no quote or backslash). */
const SUBJECT = /"subjectId":"([^"\\]+)"/;

/**
 * Reads of the embedded event log on one SQLite connection: rows become recorded events, the
 * data of sealed events opened with their subjects' keys (erased subjects' events come back with
 * `data` `{}` and `erased` set). The event store reads through one on its own connection, and
 * the read-ahead thread through another on its own.
 */
export class LogReader {
  private readonly db: DatabaseSync;
  private readonly keys: SubjectKeys;
  private readonly opened: BoundedCache<number, OpenedData> | undefined;
  private readonly all: StatementSync;
  private readonly byCategories = new Map<string, StatementSync>();

  /**
   * @param keys the subject keys on `db`.
   * @param opened data already opened, by position: used and filled when given.
   */
  constructor(db: DatabaseSync, keys: SubjectKeys, opened?: BoundedCache<number, OpenedData>) {
    this.db = db;
    this.keys = keys;
    this.opened = opened;
    this.all = db.prepare('SELECT * FROM events WHERE position > ? ORDER BY position LIMIT ?');
  }

  /** Events after `after`, of `categories` when given, in position order (see the port). */
  readAll({ after, categories, limit = 500 }: ReadAllOptions): RecordedEvent[] {
    if (categories === undefined) {
      return this.toRecordedAll(this.all.all(after, limit) as unknown as EventRow[]);
    }
    if (categories.length === 0) return [];
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
    return this.toRecordedAll(statement.all(...categories, after, limit) as unknown as EventRow[]);
  }

  /** {@link toRecorded} of rows read together: the keys of their subjects are loaded at once. */
  toRecordedAll(rows: readonly EventRow[]): RecordedEvent[] {
    const subjects: string[] = [];
    for (const row of rows) {
      if (this.opened?.has(row.position) === true) continue;
      const match = SUBJECT.exec(row.metadata);
      if (match?.[1] !== undefined) subjects.push(match[1]);
    }
    if (subjects.length > 1) this.keys.prefetch(subjects);
    return rows.map((row) => this.toRecorded(row));
  }

  /** The recorded event of `row`, its data opened when it is sealed. */
  toRecorded(row: EventRow): RecordedEvent {
    const metadata = JSON.parse(row.metadata) as EventMetadata;
    let data = JSON.parse(row.data) as unknown;
    let erased = false;
    if (metadata.subjectId !== undefined) {
      const subjectId = metadata.subjectId;
      const key = data === null ? null : this.keys.find(subjectId);
      if (key !== null && key !== 'erased') {
        let opened = this.opened?.get(row.position);
        if (opened === undefined) {
          opened = { subjectId, json: openWith(key, data as string) };
          this.opened?.set(row.position, opened);
        }
        data = JSON.parse(opened.json) as unknown;
      } else {
        data = {};
        erased = true;
      }
    }
    return {
      id: row.id,
      streamId: row.stream_id,
      revision: row.revision,
      position: row.position,
      type: row.type,
      schemaVersion: row.schema_version,
      data,
      metadata,
      createdAt: new Date(row.created_at).toISOString(),
      ...(erased ? { erased } : {}),
    };
  }
}
