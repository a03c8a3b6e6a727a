/**
 * The `activity-view` projection (architecture brief, "Idempotent projections"): contact,
 * tracked-event and email streams into the feed and its counters.
 *
 * - An item is inserted under the id of its source event: a replayed or duplicated event is a
 *   duplicate key and changes nothing; counters move only when the insert happened.
 * - ContactDeleted records a tombstone of the contact, then removes each of its items (moving
 *   the counters back). An item of that contact that arrives later (another stream, handled
 *   concurrently or after) is refused by the tombstone, or removed again when the deletion
 *   raced with its insert.
 * - Everything is derived from the log: dropping the collections and replaying rebuilds them.
 */
import { isDuplicateKey, type RecordedEvent, type ViewStore } from '@stamp/platform';

import { bumpCounters } from './counters.ts';
import { decideActivity, type NewActivityItem } from './decide.ts';
import {
  type ActivityItemDocument,
  activityEmails,
  activityItems,
  erasedContacts,
  minuteOf,
} from './items.ts';

/** Consumer group of the projection. */
export const ACTIVITY_VIEW_GROUP = 'activity-view';

/** Applies one event to the activity views. Idempotent. */
export async function projectActivity(views: ViewStore, event: RecordedEvent): Promise<void> {
  const change = decideActivity(event);
  switch (change.kind) {
    case 'none':
      return;
    case 'add':
      await addItem(views, change.item);
      return;
    case 'outcome': {
      const queued = await queuedItemOf(views, change.emailId);
      if (queued?.projectId !== change.projectId) return;
      await addItem(views, {
        id: change.id,
        projectId: change.projectId,
        type: change.type,
        contactId: queued.contactId,
        emailId: change.emailId,
        at: change.at,
        data: { ...queued.data, ...change.data },
      });
      return;
    }
    case 'forgetContact':
      await forgetContact(views, change.projectId, change.contactId);
      return;
  }
}

/** The `email.sent` item of `emailId`: by its link, or by a query for items recorded without one. */
async function queuedItemOf(
  views: ViewStore,
  emailId: string,
): Promise<ActivityItemDocument | null> {
  const link = await activityEmails(views).findOne({ _id: emailId });
  if (link !== null) return await activityItems(views).findOne({ _id: link.itemId });
  return await activityItems(views).findOne({ emailId, type: 'email.sent' });
}

const isErased = async (views: ViewStore, contactId: string): Promise<boolean> =>
  (await erasedContacts(views).findOne({ _id: contactId })) !== null;

async function addItem(views: ViewStore, item: NewActivityItem): Promise<void> {
  if (await isErased(views, item.contactId)) return;
  const document: ActivityItemDocument = {
    _id: item.id,
    projectId: item.projectId,
    type: item.type,
    contactId: item.contactId,
    ...(item.emailId === undefined ? {} : { emailId: item.emailId }),
    at: item.at,
    minute: minuteOf(Date.parse(item.at)),
    data: item.data,
  };
  if (item.type === 'email.sent' && item.emailId !== undefined) {
    await activityEmails(views).updateOne(
      { _id: item.emailId },
      { $set: { itemId: item.id } },
      { upsert: true },
    );
  }
  try {
    await activityItems(views).insertOne(document);
  } catch (error) {
    if (isDuplicateKey(error)) return;
    throw error;
  }
  await bumpCounters(views, document, 1);
  // The contact may have been deleted while this item was written.
  if (await isErased(views, item.contactId)) await removeItem(views, document._id);
}

/** Removes one item; the counters move back only when this call removed it. */
async function removeItem(views: ViewStore, id: string): Promise<void> {
  const items = activityItems(views);
  const item = await items.findOne({ _id: id });
  if (item === null) return;
  const { deletedCount } = await items.deleteOne({ _id: id });
  if (deletedCount === 1) await bumpCounters(views, item, -1);
}

async function forgetContact(
  views: ViewStore,
  projectId: string,
  contactId: string,
): Promise<void> {
  try {
    await erasedContacts(views).insertOne({ _id: contactId, projectId });
  } catch (error) {
    if (!isDuplicateKey(error)) throw error;
  }
  const items = await activityItems(views).find({ projectId, contactId });
  for (const item of items) await removeItem(views, item._id);
}
