import type { DatabaseSync, StatementSync } from 'node:sqlite';

/**
 * Leases: at most one holder of a named lease at a time, for `ttlMs` after each acquire or
 * renew. Schedulers and the relay run only while they hold their lease.
 */
export interface LeaseStore {
  /** Takes or renews the lease for `owner` for `ttlMs` (ms); false while another owner holds it. */
  acquire(name: string, owner: string, ttlMs: number): Promise<boolean>;
  /** Gives the lease up when `owner` holds it; otherwise does nothing. */
  release(name: string, owner: string): Promise<void>;
}

/** {@link LeaseStore} in the embedded SQLite database (shared by processes on one host). */
export class SqliteLeaseStore implements LeaseStore {
  private readonly acquireStatement: StatementSync;
  private readonly releaseStatement: StatementSync;

  constructor(db: DatabaseSync) {
    db.exec(`CREATE TABLE IF NOT EXISTS leases (
      name TEXT PRIMARY KEY, owner TEXT NOT NULL, expires_at INTEGER NOT NULL) WITHOUT ROWID`);
    this.acquireStatement = db.prepare(`INSERT INTO leases (name, owner, expires_at)
      VALUES (?1, ?2, ?3 + ?4)
      ON CONFLICT (name) DO UPDATE SET owner = ?2, expires_at = ?3 + ?4
      WHERE leases.owner = ?2 OR leases.expires_at <= ?3`);
    this.releaseStatement = db.prepare('DELETE FROM leases WHERE name = ? AND owner = ?');
  }

  acquire(name: string, owner: string, ttlMs: number): Promise<boolean> {
    return Promise.resolve(this.acquireStatement.run(name, owner, Date.now(), ttlMs).changes > 0);
  }

  release(name: string, owner: string): Promise<void> {
    this.releaseStatement.run(name, owner);
    return Promise.resolve();
  }
}
