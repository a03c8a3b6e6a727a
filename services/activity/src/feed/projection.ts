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

import { bumpCounters, bumpCountersOf } from './counters.ts';
import { type ActivityChange, decideActivity, type NewActivityItem } from './decide.ts';
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
export function projectActivity(views: ViewStore, event: RecordedEvent): Promise<void> {
  return projectActivityBatch(views, [event]);
}

/**
 * Applies events in log order, as {@link projectActivity} of each in turn would, reading and
 * writing the documents of a run of additions together: the queued items outcomes join, the
 * tombstones, the items already there, and each counters document once with the run's sum.
 * Idempotent.
 */
export async function projectActivityBatch(
  views: ViewStore,
  events: readonly RecordedEvent[],
): Promise<void> {
  let run: Exclude<ActivityChange, { kind: 'none' | 'forgetContact' }>[] = [];
  for (const event of events) {
    const change = decideActivity(event);
    if (change.kind === 'none') continue;
    if (change.kind === 'forgetContact') {
      // Everything before the deletion is written first: it removes those items too.
      await addItems(views, run);
      run = [];
      await forgetContact(views, change.projectId, change.contactId);
      continue;
    }
    run.push(change);
  }
  await addItems(views, run);
}

/** Ids of the contacts among `contactIds` that were deleted (their tombstones). */
async function erasedAmong(views: ViewStore, contactIds: Iterable<string>): Promise<Set<string>> {
  const ids = [...new Set(contactIds)];
  if (ids.length === 0) return new Set();
  const found = await erasedContacts(views).find({ _id: { $in: ids } });
  return new Set(found.map((tombstone) => tombstone._id));
}

/**
 * The `email.sent` items of `emailIds`, by email id: by their links, or by a query for items
 * recorded without one.
 */
async function queuedItemsOf(
  views: ViewStore,
  emailIds: readonly string[],
): Promise<Map<string, ActivityItemDocument>> {
  const queued = new Map<string, ActivityItemDocument>();
  if (emailIds.length === 0) return queued;
  const links = await activityEmails(views).find({ _id: { $in: [...new Set(emailIds)] } });
  const linked = await activityItems(views).find({
    _id: { $in: links.map((link) => link.itemId) },
  });
  const byId = new Map(linked.map((item) => [item._id, item]));
  for (const link of links) {
    const item = byId.get(link.itemId);
    if (item !== undefined) queued.set(link._id, item);
  }
  for (const emailId of emailIds) {
    if (queued.has(emailId)) continue;
    const item = await activityItems(views).findOne({ emailId, type: 'email.sent' });
    if (item !== null) queued.set(emailId, item);
  }
  return queued;
}

/** Adds the items of a run of additions and outcomes, then moves the counters by them. */
async function addItems(
  views: ViewStore,
  run: readonly Exclude<ActivityChange, { kind: 'none' | 'forgetContact' }>[],
): Promise<void> {
  if (run.length === 0) return;
  // Outcomes join the `email.sent` item of their email: of this run, or recorded before.
  const sentInRun = new Map<string, NewActivityItem>();
  const looked: string[] = [];
  for (const change of run) {
    if (change.kind === 'add') {
      if (change.item.type === 'email.sent' && change.item.emailId !== undefined) {
        sentInRun.set(change.item.emailId, change.item);
      }
    } else if (!sentInRun.has(change.emailId)) looked.push(change.emailId);
  }
  const queued = await queuedItemsOf(views, looked);
  const candidates = new Map<string, NewActivityItem>();
  for (const change of run) {
    let item: NewActivityItem;
    if (change.kind === 'add') item = change.item;
    else {
      const sent = sentInRun.get(change.emailId) ?? queued.get(change.emailId);
      if (sent?.projectId !== change.projectId) continue;
      item = {
        id: change.id,
        projectId: change.projectId,
        type: change.type,
        contactId: sent.contactId,
        emailId: change.emailId,
        at: change.at,
        data: { ...sent.data, ...change.data },
      };
    }
    if (!candidates.has(item.id)) candidates.set(item.id, item);
  }
  const erased = await erasedAmong(
    views,
    [...candidates.values()].map((item) => item.contactId),
  );
  const items = activityItems(views);
  const present = new Set(
    (await items.find({ _id: { $in: [...candidates.keys()] } })).map((item) => item._id),
  );
  const added: ActivityItemDocument[] = [];
  for (const item of candidates.values()) {
    if (erased.has(item.contactId)) continue;
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
    if (present.has(document._id)) continue;
    try {
      await items.insertOne(document);
    } catch (error) {
      if (isDuplicateKey(error)) continue;
      throw error;
    }
    added.push(document);
  }
  await bumpCountersOf(views, added, 1);
  // A contact may have been deleted while these items were written.
  const deleted = await erasedAmong(
    views,
    added.map((item) => item.contactId),
  );
  for (const item of added) {
    if (deleted.has(item.contactId)) await removeItem(views, item._id);
  }
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
