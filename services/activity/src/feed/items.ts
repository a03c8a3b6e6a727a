/**
 * The activity views (spec part 4, "GET /activity"; API reference, "System events and
 * activity"): the `activity` collection of feed items, the `activityStats` counters, the
 * `activityErasedContacts` tombstones and the `activityEmails` links, with their indexes and the
 * UTC time buckets they use.
 */
import type { ViewCollection, ViewDocument, ViewStore } from '@stamp/platform';

/**
 * Activity item types of the API reference, in its order, and `email.suppressed` (reference,
 * "Suppressions").
 */
export const ACTIVITY_TYPES = [
  'event.triggered',
  'email.sent',
  'email.delivered',
  'email.opened',
  'email.clicked',
  'email.bounced',
  'email.complained',
  'email.received',
  'contact.subscribed',
  'contact.unsubscribed',
  'campaign.sent',
  'campaign.scheduled',
  'workflow.started',
  'workflow.completed',
  'email.suppressed',
] as const;

/** An activity item type (API reference, "System events and activity"). */
export type ActivityType = (typeof ACTIVITY_TYPES)[number];

/** Whether `value` is an {@link ActivityType}. */
export const isActivityType = (value: string): value is ActivityType =>
  (ACTIVITY_TYPES as readonly string[]).includes(value);

/** Name of the feed collection. */
export const ACTIVITY_VIEW = 'activity';
/** Name of the counters collection. */
export const ACTIVITY_STATS_VIEW = 'activityStats';
/** Name of the collection of deleted contacts whose activity must not come back. */
export const ACTIVITY_ERASED_CONTACTS_VIEW = 'activityErasedContacts';
/** Name of the collection linking an email id to its `email.sent` item. */
export const ACTIVITY_EMAILS_VIEW = 'activityEmails';
/** Every collection the activity projection fills (dropped together by a rebuild). */
export const ACTIVITY_COLLECTIONS = [
  ACTIVITY_VIEW,
  ACTIVITY_STATS_VIEW,
  ACTIVITY_ERASED_CONTACTS_VIEW,
  ACTIVITY_EMAILS_VIEW,
] as const;

/**
 * A feed item (`_id` = id of the source event). It holds no email address and no message body:
 * the contact's email is joined from the contacts view when a page is read, and every item of a
 * contact is removed when the contact is deleted.
 */
export interface ActivityItemDocument extends ViewDocument {
  projectId: string;
  type: ActivityType;
  contactId: string;
  /** The email the item is about (email.* types). */
  emailId?: string;
  /** ISO 8601 time of the source event (UTC, millisecond precision). */
  at: string;
  /** UTC minute of `at`, `YYYY-MM-DDTHH:MM`: the bucket the feed is read by. */
  minute: string;
  /** Type-specific details: subject and template of emails, name and data of tracked events. */
  data: Record<string, unknown>;
}

/**
 * Granularity of a counters document: all time, one UTC day, one UTC hour; or all time for one
 * campaign (its emails) or one event name (its `event.triggered` items).
 */
export type StatsScope = 'total' | 'day' | 'hour' | 'campaign' | 'event';

/**
 * A counters document of a project: `_id` `<scope>|<projectId>|<bucket>` (bucket empty for
 * `total`, `YYYY-MM-DD` for days, `YYYY-MM-DDTHH` for hours, the campaign id or the event name). `counts` holds the number of feed
 * items per type under {@link typeKey}; `total` their sum. The `total` document also keeps the
 * first and last day that ever had an item, which bound walks over days.
 */
export interface ActivityStatsDocument extends ViewDocument {
  projectId: string;
  scope: StatsScope;
  bucket: string;
  total: number;
  counts: Partial<Record<string, number>>;
  firstDay?: string;
  lastDay?: string;
}

/** A deleted contact (`_id` = contact id): items arriving for it later are dropped. */
export interface ErasedContactDocument extends ViewDocument {
  projectId: string;
}

/** The feed collection. */
export const activityItems = (views: ViewStore): ViewCollection<ActivityItemDocument> =>
  views.collection<ActivityItemDocument>(ACTIVITY_VIEW);

/** The counters collection. */
export const activityStats = (views: ViewStore): ViewCollection<ActivityStatsDocument> =>
  views.collection<ActivityStatsDocument>(ACTIVITY_STATS_VIEW);

/**
 * A link from an email (`_id` = email id) to its `email.sent` item, so that the email's outcome
 * finds the item by `_id`: a read the view store answers from its held changes, where a query by
 * `emailId` would first write them. It holds no contact data.
 */
export interface ActivityEmailDocument extends ViewDocument {
  itemId: string;
}

/** The email links. */
export const activityEmails = (views: ViewStore): ViewCollection<ActivityEmailDocument> =>
  views.collection<ActivityEmailDocument>(ACTIVITY_EMAILS_VIEW);

/** The tombstones of deleted contacts. */
export const erasedContacts = (views: ViewStore): ViewCollection<ErasedContactDocument> =>
  views.collection<ErasedContactDocument>(ACTIVITY_ERASED_CONTACTS_VIEW);

/**
 * Creates the indexes of the feed: {projectId, minute} (pages are read minute by minute, newest
 * first), {projectId, contactId} (the contact filter and contact deletion) and {emailId} (an
 * email's outcome finds its queued item when no link was recorded), and of the counters
 * {projectId, scope} (a project's campaign and event counters). Tombstones and links are read by
 * `_id` only.
 */
export async function createActivityIndexes(views: ViewStore): Promise<void> {
  const items = activityItems(views);
  await items.createIndex({ projectId: 1, minute: 1 });
  await items.createIndex({ projectId: 1, contactId: 1 });
  await items.createIndex({ emailId: 1 });
  await activityStats(views).createIndex({ projectId: 1, scope: 1 });
}

/** Drops every activity collection, so that replaying the log from the start rebuilds them. */
export async function dropActivityViews(views: ViewStore): Promise<void> {
  for (const name of ACTIVITY_COLLECTIONS) await views.drop(name);
}

/** Field name of a type inside `counts` (`email.sent` → `email_sent`: no dot in a field name). */
export const typeKey = (type: ActivityType): string => type.replaceAll('.', '_');

/** Count of `type` (or of every type when undefined) in a counters document; 0 when absent. */
export function countOf(document: ActivityStatsDocument | null, type?: ActivityType): number {
  if (document === null) return 0;
  return type === undefined ? document.total : (document.counts[typeKey(type)] ?? 0);
}

/** `_id` of a counters document. */
export const statsId = (scope: StatsScope, projectId: string, bucket = ''): string =>
  `${scope}|${projectId}|${bucket}`;

/** One minute in milliseconds. */
export const MINUTE_MS = 60_000;
/** One hour in milliseconds. */
export const HOUR_MS = 60 * MINUTE_MS;
/** One (UTC) day in milliseconds. */
export const DAY_MS = 24 * HOUR_MS;

/** UTC day of an epoch-ms time, `YYYY-MM-DD`. */
export const dayOf = (ms: number): string => new Date(ms).toISOString().slice(0, 10);
/** UTC hour of an epoch-ms time, `YYYY-MM-DDTHH`. */
export const hourOf = (ms: number): string => new Date(ms).toISOString().slice(0, 13);
/** UTC minute of an epoch-ms time, `YYYY-MM-DDTHH:MM`. */
export const minuteOf = (ms: number): string => new Date(ms).toISOString().slice(0, 16);
/** Epoch ms of the start of a UTC day given as `YYYY-MM-DD`. */
export const dayStart = (day: string): number => Date.parse(`${day}T00:00:00.000Z`);
/** Epoch-ms start of the bucket (day, hour or minute) holding `ms`. */
export const floorTo = (ms: number, size: number): number => Math.floor(ms / size) * size;
