import type { DatabaseSync, StatementSync } from 'node:sqlite';

import { transaction } from '../sqlite/database.ts';

/** Durable checkpoints of consumer groups: the last log position a group has fully handled. */
export interface CheckpointStore {
  /** The stored position, 0 when the group has none. */
  load(groupId: string): Promise<number>;
  save(groupId: string, position: number): Promise<void>;
  /** Forgets a group's checkpoint, so the group reads the log from the start again. */
  reset(groupId: string): Promise<void>;
}

/**
 * {@link CheckpointStore} in the embedded SQLite database. The checkpoints saved within one turn
 * of the event loop are written in one transaction (the groups of a bus save on the same
 * ticks), each promise settling once it is written.
 */
export class SqliteCheckpointStore implements CheckpointStore {
  private readonly db: DatabaseSync;
  private readonly loadStatement: StatementSync;
  private readonly saveStatement: StatementSync;
  private readonly resetStatement: StatementSync;
  private queued = new Map<string, number>();
  private written: Promise<void> | undefined;

  constructor(db: DatabaseSync) {
    this.db = db;
    db.exec(`CREATE TABLE IF NOT EXISTS checkpoints (
      group_id TEXT PRIMARY KEY, position INTEGER NOT NULL) WITHOUT ROWID`);
    this.loadStatement = db.prepare('SELECT position FROM checkpoints WHERE group_id = ?');
    this.saveStatement = db.prepare(`INSERT INTO checkpoints (group_id, position) VALUES (?, ?)
      ON CONFLICT (group_id) DO UPDATE SET position = excluded.position`);
    this.resetStatement = db.prepare('DELETE FROM checkpoints WHERE group_id = ?');
  }

  load(groupId: string): Promise<number> {
    const queued = this.queued.get(groupId);
    if (queued !== undefined) return Promise.resolve(queued);
    const row = this.loadStatement.get(groupId) as { position: number } | undefined;
    return Promise.resolve(row?.position ?? 0);
  }

  save(groupId: string, position: number): Promise<void> {
    this.queued.set(groupId, position);
    this.written ??= new Promise<void>((resolve, reject) => {
      setImmediate(() => {
        const queued = this.queued;
        this.queued = new Map();
        this.written = undefined;
        try {
          if (this.db.isOpen) {
            transaction(this.db, () => {
              for (const [group, at] of queued) this.saveStatement.run(group, at);
            });
          }
          resolve();
        } catch (error) {
          reject(error instanceof Error ? error : new Error(String(error)));
        }
      });
    });
    return this.written;
  }

  reset(groupId: string): Promise<void> {
    this.queued.delete(groupId);
    this.resetStatement.run(groupId);
    return Promise.resolve();
  }
}
