import { type Collection, type Db, MongoServerError } from 'mongodb';

import type { LeaseStore } from './leases.ts';

/** A held lease: `_id` is its name; `expiresAt` is in ms since the Unix epoch. */
interface LeaseDocument {
  _id: string;
  owner: string;
  expiresAt: number;
}

/**
 * {@link LeaseStore} in a MongoDB collection (default `leases`), one document
 * `{_id: name, owner, expiresAt}` per held lease. {@link acquire} is one atomic upsert whose filter
 * matches the lease only when `owner` holds it or it has expired; when another owner holds it, the
 * upsert tries to insert a second document with the same `_id` and fails with a duplicate key
 * (code 11000), which means "not acquired". Expiry is judged by this process's clock (ms), so the
 * clocks of the processes sharing a lease must agree to well within `ttlMs`.
 */
export class MongoLeaseStore implements LeaseStore {
  private readonly leases: Collection<LeaseDocument>;

  /**
   * @param db database handle (for example {@link MongoViewStore.db}); its client stays open.
   * @param collection collection name, default `leases`
   */
  constructor(db: Db, collection = 'leases') {
    this.leases = db.collection<LeaseDocument>(collection);
  }

  /**
   * @param ttlMs how long the lease is held from now, ms
   * @throws the driver's MongoServerError for failures other than a held lease
   */
  async acquire(name: string, owner: string, ttlMs: number): Promise<boolean> {
    const now = Date.now();
    try {
      const result = await this.leases.updateOne(
        { _id: name, $or: [{ owner }, { expiresAt: { $lte: now } }] },
        { $set: { owner, expiresAt: now + ttlMs } },
        { upsert: true },
      );
      return result.matchedCount > 0 || result.upsertedCount > 0;
    } catch (error) {
      if (error instanceof MongoServerError && error.code === 11000) return false;
      throw error;
    }
  }

  async release(name: string, owner: string): Promise<void> {
    await this.leases.deleteOne({ _id: name, owner });
  }
}
