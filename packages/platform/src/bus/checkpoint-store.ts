import type { DatabaseSync, StatementSync } from 'node:sqlite';

/** Durable checkpoints of consumer groups: the last log position a group has fully handled. */
export interface CheckpointStore {
  /** The stored position, 0 when the group has none. */
  load(groupId: string): number;
  save(groupId: string, position: number): void;
  /** Forgets a group's checkpoint, so the group reads the log from the start again. */
  reset(groupId: string): void;
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

  load(groupId: string): number {
    const row = this.loadStatement.get(groupId) as { position: number } | undefined;
    return row?.position ?? 0;
  }

  save(groupId: string, position: number): void {
    this.saveStatement.run(groupId, position);
  }

  reset(groupId: string): void {
    this.resetStatement.run(groupId);
  }
}
