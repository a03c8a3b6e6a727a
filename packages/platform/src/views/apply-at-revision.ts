import { DuplicateKeyError, type Update, type ViewCollection } from './view-store.ts';

/** Whether `error` is a duplicate-key failure (DuplicateKeyError, or MongoDB's code 11000). */
export function isDuplicateKey(error: unknown): boolean {
  return error instanceof DuplicateKeyError || (error as { code?: unknown }).code === 11000;
}

/**
 * The idempotent write of a projection (architecture brief, "Idempotent projections"): applies
 * `update` to document `id` only when it reflects an earlier `revision` of its stream, and sets
 * `revision`. With `create`, a missing document is inserted (upsert). A replayed or duplicated
 * event changes nothing: the filter does not match, and an upsert that would repeat the id fails
 * with a duplicate key, which is absorbed.
 * @returns whether the document changed.
 */
export async function applyAtRevision(
  collection: ViewCollection,
  id: string,
  revision: number,
  update: Update,
  create: boolean,
): Promise<boolean> {
  const withRevision: Update = { ...update, $set: { ...(update.$set ?? {}), revision } };
  try {
    const result = await collection.updateOne(
      { _id: id, revision: { $lt: revision } },
      withRevision,
      { upsert: create },
    );
    return result.matchedCount > 0 || result.upsertedId !== undefined;
  } catch (error) {
    if (isDuplicateKey(error)) return false;
    throw error;
  }
}
