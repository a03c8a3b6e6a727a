/**
 * Projection of contacts, tracked events, emails and static memberships into the
 * `segmentAudience` view (consumer group `segments-audience`; topics `contact`, `trackedEvent`,
 * `email`, `segment`): one {@link AudienceDocument} per contact, the summary conditions are
 * tested on, so that no query reads the event log.
 *
 * Topics may arrive in any order relative to each other (distributed mode reads them from
 * separate Kafka topics), so every write is an upsert of only the fields its event owns:
 * - contact events set the contact's fields, guarded by `contactRevision` (the contact stream's
 *   revision the document reflects); `ContactDeleted` leaves a tombstone (`deleted: true`,
 *   `projectId`, nothing personal) that no later write revives;
 * - `EventTracked` raises `events.<name>` (first, last: `$min`/`$max` of the event times; count:
 *   `$inc`, guarded by the log position of the last one counted);
 * - `EmailQueued` / `EmailSent` / `EmailOpened` / `EmailClicked` / `EmailBounced` /
 *   `EmailComplained` raise the last time of `emails.sent` / `.delivery` / `.open` / `.click` /
 *   `.bounce` / `.complaint` (`$max`; automated opens and clicks none);
 * - `SegmentMembersAdded` / `SegmentMembersRemoved` / `SegmentDeleted` add and remove the
 *   segment's id in `segments` (`$addToSet` / `$pull`).
 * Each write is idempotent: replays and redeliveries change nothing.
 */
import {
  CONTACT_STREAM_CATEGORY,
  type ContactStreamEvents,
  EMAIL_STREAM_CATEGORY,
  entityIdOf,
  SEGMENT_MEMBERSHIP_STREAM_CATEGORY,
  TRACKED_EVENT_STREAM_CATEGORY,
  type EngagementEventData,
  type EventTrackedEventData,
} from '@stamp/contracts';
import {
  isDuplicateKey,
  type Filter,
  type RecordedEvent,
  streamCategory,
  type Update,
  type ViewCollection,
  type ViewStore,
} from '@stamp/platform';

import { type AudienceDocument, encodePathKey } from '../condition/index.ts';
import { SEGMENT_CATEGORY, type SegmentEvent } from '../segments/events.ts';

/** Name of the audience view. */
export const AUDIENCE_VIEW = 'segmentAudience';

/** Consumer group of the projection. */
export const AUDIENCE_VIEW_GROUP = 'segments-audience';

/**
 * Topics the projection reads (`segmentMembership` fills the members view of tracked
 * membership, in the same consumer group).
 */
export const AUDIENCE_TOPICS = [
  CONTACT_STREAM_CATEGORY,
  TRACKED_EVENT_STREAM_CATEGORY,
  EMAIL_STREAM_CATEGORY,
  SEGMENT_CATEGORY,
  SEGMENT_MEMBERSHIP_STREAM_CATEGORY,
] as const;

/** A stored audience document: the summary, plus what the projection's guards keep. */
export interface AudienceView extends AudienceDocument {
  contactRevision: number;
  deleted?: true;
}

/** The audience view collection. */
export const audienceView = (views: ViewStore): ViewCollection<AudienceView> =>
  views.collection<AudienceView>(AUDIENCE_VIEW);

/**
 * The filter of a project's live contacts (documents made only by events that arrived before
 * their contact, and tombstones of deleted contacts, have no email).
 */
export const liveContacts = (projectId: string): Filter => ({
  projectId,
  email: { $exists: true },
});

/** Creates the indexes of the audience view: {projectId}, {projectId, email}. */
export async function createAudienceIndexes(views: ViewStore): Promise<void> {
  const audience = audienceView(views);
  await audience.createIndex({ projectId: 1 });
  await audience.createIndex({ projectId: 1, email: 1 });
}

const encodeData = (data: Record<string, unknown>): Record<string, unknown> =>
  Object.fromEntries(Object.entries(data).map(([key, value]) => [encodePathKey(key), value]));

/** Upsert that absorbs the duplicate key of a document whose guard did not match. */
async function upsert(
  collection: ViewCollection<AudienceView>,
  filter: Filter,
  update: Update,
): Promise<void> {
  try {
    await collection.updateOne(filter, update, { upsert: true });
  } catch (error) {
    if (!isDuplicateKey(error)) throw error;
  }
}

type ContactEventOf = {
  [Type in keyof ContactStreamEvents]: { type: Type; data: ContactStreamEvents[Type] };
}[keyof ContactStreamEvents];

function contactUpdate(event: ContactEventOf, at: string): Update | 'delete' | undefined {
  switch (event.type) {
    case 'ContactCreated':
      return {
        $set: {
          email: event.data.email,
          subscribed: event.data.subscribed,
          data: encodeData(event.data.data),
          createdAt: at,
          updatedAt: at,
        },
      };
    case 'ContactEmailChanged':
      return { $set: { email: event.data.to, updatedAt: at } };
    case 'ContactDataChanged': {
      const set: Record<string, unknown> = { updatedAt: at };
      for (const [key, value] of Object.entries(event.data.set)) {
        set[`data.${encodePathKey(key)}`] = value;
      }
      const unset = Object.fromEntries(
        event.data.unset
          .filter((key) => !Object.hasOwn(event.data.set, key))
          .map((key) => [`data.${encodePathKey(key)}`, '']),
      );
      return Object.keys(unset).length === 0 ? { $set: set } : { $set: set, $unset: unset };
    }
    case 'ContactSubscribed':
      return { $set: { subscribed: true, updatedAt: at } };
    case 'ContactUnsubscribed':
      return { $set: { subscribed: false, updatedAt: at } };
    case 'ContactDeleted':
      return 'delete';
    default:
      return undefined;
  }
}

/** Email event types and the email activity they record. */
const EMAIL_ACTIVITY_OF: Readonly<
  Record<string, 'sent' | 'delivery' | 'open' | 'click' | 'bounce' | 'complaint'>
> = {
  EmailQueued: 'sent',
  EmailSent: 'delivery',
  EmailBounced: 'bounce',
  EmailComplained: 'complaint',
  EmailOpened: 'open',
  EmailClicked: 'click',
};

/**
 * The email activity (`email.<kind>` of the filter language) an email event records, or
 * undefined. Opens and clicks that look automated (a privacy proxy, a link scanner) are not
 * engagement and record nothing.
 */
export function emailActivityOf(
  event: Pick<RecordedEvent, 'type' | 'data'>,
): 'sent' | 'delivery' | 'open' | 'click' | 'bounce' | 'complaint' | undefined {
  const activity = Object.hasOwn(EMAIL_ACTIVITY_OF, event.type)
    ? EMAIL_ACTIVITY_OF[event.type]
    : undefined;
  if (activity === 'open' || activity === 'click') {
    return (event.data as EngagementEventData).automated ? undefined : activity;
  }
  return activity;
}

/**
 * The audience documents `events` touch (by contact id), in the order they are first touched.
 */
function audienceIdsOf(events: readonly RecordedEvent[]): string[] {
  const ids = new Set<string>();
  for (const event of events) {
    if (event.erased === true) continue;
    const category = streamCategory(event.streamId);
    if (category === CONTACT_STREAM_CATEGORY) ids.add(entityIdOf(event.streamId));
    else if (category === TRACKED_EVENT_STREAM_CATEGORY && event.type === 'EventTracked') {
      ids.add((event.data as EventTrackedEventData).contactId);
    } else if (category === EMAIL_STREAM_CATEGORY && event.metadata.subjectId !== undefined) {
      ids.add(event.metadata.subjectId);
    }
  }
  return [...ids];
}

/**
 * Reads the audience documents a batch of events touches in one query, so that the updates of
 * {@link projectAudience} that follow in the same turn of the event loop read none of them again
 * (the embedded view store remembers the documents it found and the ids it did not; other
 * stores answer the query and remember nothing, which changes no result).
 */
export async function prefetchAudience(
  views: ViewStore,
  events: readonly RecordedEvent[],
): Promise<void> {
  const ids = audienceIdsOf(events);
  if (ids.length > 1) await audienceView(views).find({ _id: { $in: ids } });
}

/**
 * Applies one event to the audience view (see the module comment). Events of erased subjects
 * (their data is gone; a `ContactDeleted` follows) change nothing.
 */
export async function projectAudience(views: ViewStore, event: RecordedEvent): Promise<void> {
  if (event.erased === true) return;
  const collection = audienceView(views);
  const projectId = event.metadata.projectId ?? '';
  const category = streamCategory(event.streamId);
  const notDeleted = { deleted: { $ne: true } };

  if (category === CONTACT_STREAM_CATEGORY) {
    const contactId = entityIdOf(event.streamId);
    const update = contactUpdate(event as unknown as ContactEventOf, event.createdAt);
    if (update === undefined) return;
    const guard: Filter = {
      _id: contactId,
      $or: [{ contactRevision: { $lt: event.revision } }, { contactRevision: { $exists: false } }],
    };
    if (update === 'delete') {
      // Only the tombstone is left: no email, data, events or memberships of the contact.
      await collection.deleteMany({ _id: contactId });
      await upsert(
        collection,
        { _id: contactId },
        { $set: { projectId, contactRevision: event.revision, deleted: true } },
      );
      return;
    }
    await upsert(
      collection,
      { ...guard, ...notDeleted },
      { ...update, $set: { ...update.$set, projectId, contactRevision: event.revision } },
    );
    return;
  }

  if (category === TRACKED_EVENT_STREAM_CATEGORY) {
    if (event.type !== 'EventTracked') return;
    const data = event.data as EventTrackedEventData;
    const path = `events.${encodePathKey(data.name)}`;
    await upsert(
      collection,
      {
        _id: data.contactId,
        ...notDeleted,
        [`${path}.position`]: { $not: { $gte: event.position } },
      },
      {
        $set: { projectId },
        $min: { [`${path}.first`]: event.createdAt },
        $max: { [`${path}.last`]: event.createdAt, [`${path}.position`]: event.position },
        $inc: { [`${path}.count`]: 1 },
      },
    );
    return;
  }

  if (category === EMAIL_STREAM_CATEGORY) {
    const activity = emailActivityOf(event);
    const contactId = event.metadata.subjectId;
    if (activity === undefined || contactId === undefined) return;
    await upsert(
      collection,
      { _id: contactId, ...notDeleted },
      { $set: { projectId }, $max: { [`emails.${activity}.last`]: event.createdAt } },
    );
    return;
  }

  if (category === SEGMENT_CATEGORY) {
    const segmentId = entityIdOf(event.streamId);
    const typed = { type: event.type, data: event.data } as SegmentEvent;
    if (typed.type === 'SegmentMembersAdded') {
      for (const contactId of typed.data.contactIds) {
        await upsert(
          collection,
          { _id: contactId, ...notDeleted },
          { $set: { projectId }, $addToSet: { segments: segmentId } },
        );
      }
    } else if (typed.type === 'SegmentMembersRemoved') {
      for (const contactId of typed.data.contactIds) {
        await collection.updateOne({ _id: contactId }, { $pull: { segments: segmentId } });
      }
    } else if (typed.type === 'SegmentDeleted') {
      await collection.updateMany(
        { projectId, segments: segmentId },
        { $pull: { segments: segmentId } },
      );
    }
  }
}
