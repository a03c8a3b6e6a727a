/**
 * Views of tracked events (spec part 4, "Events"), filled by the `tracked-events-view`
 * projection and read by the /events routes. They are sized for one machine holding a million
 * events in embedded mode, where a view answers equality filters on declared indexes from hash
 * indexes and scans otherwise:
 * - `trackedEvents`: one document per event, without the contact's email (joined at read time).
 *   Each carries its log `position` and `bucket` = floor(position / {@link BUCKET_SIZE}), so a
 *   newest-first page reads whole buckets by indexed equality, newest bucket first, and sorts at
 *   most one bucket at a time instead of every event of the project.
 * - `trackedEventBuckets`: per project and bucket, how many events it holds: the directory of the
 *   non-empty buckets that pages walk.
 * - `trackedEventNames`: per project and name, the event count and the last time seen.
 * - `trackedEventDays`: per project, name and UTC day, the event count.
 * - `trackedEventErasures`: markers of deletions that lagging events must not undo: per project
 *   and name the log position up to which its events were deleted, and per deleted contact the
 *   position of its deletion.
 * Counters change only with the insertion or removal of an event document, so they always
 * converge to the documents present.
 */
import type { ContactValue } from '@stamp/contracts';
import type { ViewCollection, ViewDocument, ViewStore } from '@stamp/platform';

/** Name of the view of tracked events. */
export const TRACKED_EVENTS_VIEW = 'trackedEvents';
/** Name of the bucket directory of tracked events. */
export const TRACKED_EVENT_BUCKETS_VIEW = 'trackedEventBuckets';
/** Name of the per-name counters of tracked events. */
export const TRACKED_EVENT_NAMES_VIEW = 'trackedEventNames';
/** Name of the per-name, per-day counters of tracked events. */
export const TRACKED_EVENT_DAYS_VIEW = 'trackedEventDays';
/** Name of the deletion markers of tracked events. */
export const TRACKED_EVENT_ERASURES_VIEW = 'trackedEventErasures';

/** Log positions per bucket of the `trackedEvents` view. */
export const BUCKET_SIZE = 1024;

/** A tracked event (`_id` = event id). */
export interface TrackedEventView extends ViewDocument {
  projectId: string;
  name: string;
  contactId: string;
  /** The event's data as tracked (primitive values). */
  data: Record<string, ContactValue>;
  /** ISO 8601 time the event was recorded. */
  createdAt: string;
  /** Position of the event in the log (1-based). */
  position: number;
  /** floor(position / BUCKET_SIZE). */
  bucket: number;
}

/** Events held by one bucket of a project (`_id` = {@link bucketKey}). */
export interface TrackedEventBucketView extends ViewDocument {
  projectId: string;
  bucket: number;
  count: number;
}

/** Events of one name of a project (`_id` = {@link nameKey}). */
export interface TrackedEventNameView extends ViewDocument {
  projectId: string;
  name: string;
  count: number;
  /** ISO 8601 time of the latest event recorded under the name. */
  lastSeenAt: string;
}

/** Events of one name of a project on one UTC day (`_id` = {@link dayKey}). */
export interface TrackedEventDayView extends ViewDocument {
  projectId: string;
  name: string;
  /** `YYYY-MM-DD` (UTC). */
  day: string;
  count: number;
}

/**
 * A deletion marker (`_id` = {@link nameErasureKey} or {@link contactErasureKey}): events of the
 * name (or of the contact) at log positions up to `upToPosition` are not projected any more.
 */
export interface TrackedEventErasureView extends ViewDocument {
  upToPosition: number;
}

/** The collections of tracked events. */
export interface TrackedEventViews {
  events: ViewCollection<TrackedEventView>;
  buckets: ViewCollection<TrackedEventBucketView>;
  names: ViewCollection<TrackedEventNameView>;
  days: ViewCollection<TrackedEventDayView>;
  erasures: ViewCollection<TrackedEventErasureView>;
}

/** The collections of tracked events in `views`. */
export function trackedEventViews(views: ViewStore): TrackedEventViews {
  return {
    events: views.collection<TrackedEventView>(TRACKED_EVENTS_VIEW),
    buckets: views.collection<TrackedEventBucketView>(TRACKED_EVENT_BUCKETS_VIEW),
    names: views.collection<TrackedEventNameView>(TRACKED_EVENT_NAMES_VIEW),
    days: views.collection<TrackedEventDayView>(TRACKED_EVENT_DAYS_VIEW),
    erasures: views.collection<TrackedEventErasureView>(TRACKED_EVENT_ERASURES_VIEW),
  };
}

/**
 * Creates the indexes: events {projectId, bucket}, {projectId, name, bucket},
 * {projectId, contactId}; buckets and names {projectId}; days {projectId, day}.
 */
export async function createTrackedEventIndexes(views: ViewStore): Promise<void> {
  const collections = trackedEventViews(views);
  await collections.events.createIndex({ projectId: 1, bucket: 1 });
  await collections.events.createIndex({ projectId: 1, name: 1, bucket: 1 });
  await collections.events.createIndex({ projectId: 1, contactId: 1 });
  await collections.buckets.createIndex({ projectId: 1 });
  await collections.names.createIndex({ projectId: 1 });
  await collections.days.createIndex({ projectId: 1, day: 1 });
}

/** Bucket of a log position. */
export const bucketOf = (position: number): number => Math.floor(position / BUCKET_SIZE);

/** UTC day (`YYYY-MM-DD`) of an ISO 8601 time or an epoch time in ms. */
export const dayOf = (time: string | number): string => new Date(time).toISOString().slice(0, 10);

/** `_id` of a bucket counter. */
export const bucketKey = (projectId: string, bucket: number): string =>
  JSON.stringify([projectId, bucket]);

/** `_id` of a name counter. */
export const nameKey = (projectId: string, name: string): string =>
  JSON.stringify([projectId, name]);

/** `_id` of a day counter. */
export const dayKey = (projectId: string, name: string, day: string): string =>
  JSON.stringify([projectId, name, day]);

/** `_id` of the deletion marker of a name. */
export const nameErasureKey = (projectId: string, name: string): string =>
  JSON.stringify(['name', projectId, name]);

/** `_id` of the deletion marker of a contact (contact ids are unique across projects). */
export const contactErasureKey = (contactId: string): string =>
  JSON.stringify(['contact', contactId]);
