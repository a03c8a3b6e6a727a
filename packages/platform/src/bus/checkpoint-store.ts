import type { DatabaseSync, StatementSync } from 'node:sqlite';

/** Durable checkpoints of consumer groups: the last log position a group has fully handled. */
export interface CheckpointStore {
  /** The stored position, 0 when the group has none. */
  load(groupId: string): Promise<number>;
  save(groupId: string, position: number): Promise<void>;
  /** Forgets a group's checkpoint, so the group reads the log from the start again. */
  reset(groupId: string): Promise<void>;
}

/** {@link CheckpointStore} in the embedded SQLite database. */
export class SqliteCheckpointStore implements CheckpointStore {
  private readonly loadStatement: StatementSync;
  private readonly saveStatement: StatementSync;
  private readonly resetStatement: StatementSync;

  constructor(db: DatabaseSync) {
    db.exec(`CREATE TABLE IF NOT EXISTS checkpoints (
      group_id TEXT PRIMARY KEY, position INTEGER NOT NULL) WITHOUT ROWID`);
    this.loadStatement = db.prepare('SELECT position FROM checkpoints WHERE group_id = ?');
    this.saveStatement = db.prepare(`INSERT INTO checkpoints (group_id, position) VALUES (?, ?)
      ON CONFLICT (group_id) DO UPDATE SET position = excluded.position`);
    this.resetStatement = db.prepare('DELETE FROM checkpoints WHERE group_id = ?');
  }

  load(groupId: string): Promise<number> {
    const row = this.loadStatement.get(groupId) as { position: number } | undefined;
    return Promise.resolve(row?.position ?? 0);
  }

  save(groupId: string, position: number): Promise<void> {
    this.saveStatement.run(groupId, position);
    return Promise.resolve();
  }

  reset(groupId: string): Promise<void> {
    this.resetStatement.run(groupId);
    return Promise.resolve();
  }
}
