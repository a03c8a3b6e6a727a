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

/**
 * One owner's hold on the lease `name` for schedulers that ask on every poll: {@link held}
 * writes (takes or renews the lease for `ttlMs`) only when it is not held or a third of `ttlMs`
 * has passed since the last renewal, so a holder polling every 200 ms renews it every few
 * seconds, not five times a second. Answers true only while at least two thirds of `ttlMs` are
 * left of the hold, as the store granted it.
 */
export class Lease {
  private readonly store: LeaseStore;
  readonly name: string;
  readonly owner: string;
  private readonly ttlMs: number;
  /** When the store last granted the lease to {@link owner} (epoch ms), or null. */
  private renewedAt: number | null = null;

  constructor(store: LeaseStore, name: string, owner: string, ttlMs: number) {
    this.store = store;
    this.name = name;
    this.owner = owner;
    this.ttlMs = ttlMs;
  }

  /** Whether {@link owner} holds the lease, taking or renewing it when due (see the class). */
  async held(): Promise<boolean> {
    const now = Date.now();
    if (this.renewedAt !== null && now - this.renewedAt < this.ttlMs / 3) return true;
    this.renewedAt = null;
    if (!(await this.store.acquire(this.name, this.owner, this.ttlMs))) return false;
    this.renewedAt = now;
    return true;
  }

  /** Gives the lease up (when held). */
  async release(): Promise<void> {
    this.renewedAt = null;
    await this.store.release(this.name, this.owner);
  }
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
