import { type Collection, type Db, MongoServerError } from 'mongodb';

import type { CheckpointStore } from './checkpoint-store.ts';

/** A stored checkpoint: `_id` is the consumer group, `position` its last fully handled position. */
interface CheckpointDocument {
  _id: string;
  position: number;
}

/**
 * {@link CheckpointStore} in a MongoDB collection (default `checkpoints`), one document
 * `{_id: groupId, position}` per group. {@link save} uses `$max`, so a checkpoint never moves
 * backwards, even when a late, slower consumer saves an older position after a newer one; only
 * {@link reset} rewinds a group. Writes use the write concern of the `db` handle given.
 */
export class MongoCheckpointStore implements CheckpointStore {
  private readonly checkpoints: Collection<CheckpointDocument>;

  /**
   * @param db database handle (for example {@link MongoViewStore.db}); its client stays open.
   * @param collection collection name, default `checkpoints`
   */
  constructor(db: Db, collection = 'checkpoints') {
    this.checkpoints = db.collection<CheckpointDocument>(collection);
  }

  async load(groupId: string): Promise<number> {
    const document = await this.checkpoints.findOne({ _id: groupId });
    return document?.position ?? 0;
  }

  /**
   * Records `position` for the group unless a later one is stored.
   * @throws the driver's MongoServerError when the server refuses the write
   */
  async save(groupId: string, position: number): Promise<void> {
    const write = (): Promise<unknown> =>
      this.checkpoints.updateOne({ _id: groupId }, { $max: { position } }, { upsert: true });
    try {
      await write();
    } catch (error) {
      // Two first saves of one group race on the upsert: the loser retries as an update.
      if (!(error instanceof MongoServerError && error.code === 11000)) throw error;
      await write();
    }
  }

  async reset(groupId: string): Promise<void> {
    await this.checkpoints.deleteOne({ _id: groupId });
  }
}
