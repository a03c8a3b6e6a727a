/**
 * Reads of the feed (spec part 4, "GET /activity…"): newest-first pages, counts over ranges, and
 * the counters behind /activity/stats, /activity/recent-count and /activity/types.
 *
 * A page is read newest first by walking the project's days, hours and minutes backwards from the
 * upper bound, skipping the days and hours whose counters are zero and reading the non-empty
 * minutes from the {projectId, minute} index. A page therefore costs a few counter look-ups per
 * day walked plus the items of the minutes it reads, whatever the size of the feed. With a contact
 * filter, the contact's items come from the {projectId, contactId} index.
 */
import { CONTACTS_VIEW, type ContactViewDocument } from '@stamp/contracts';
import type { Filter, ViewDocument, ViewStore } from '@stamp/platform';

import { countRange, dayCounters, hourCounters, projectTotals } from './counters.ts';
import {
  ACTIVITY_TYPES,
  type ActivityItemDocument,
  type ActivityType,
  activityItems,
  countOf,
  DAY_MS,
  dayOf,
  dayStart,
  floorTo,
  HOUR_MS,
  hourOf,
  MINUTE_MS,
  minuteOf,
} from './items.ts';

/** A position in the feed: an item's time (epoch ms) and id; the order is (at, id) descending. */
export interface FeedPosition {
  at: number;
  id: string;
}

/** Filters and position of a page. Times are epoch ms, both bounds inclusive. */
export interface FeedQuery {
  projectId: string;
  limit: number;
  /** Position of the last item of the previous page; the page holds the items after it. */
  after?: FeedPosition | undefined;
  type?: ActivityType | undefined;
  contactId?: string | undefined;
  from?: number | undefined;
  to?: number | undefined;
}

/** An activity item as the API answers it. */
export interface ActivityItem {
  id: string;
  type: ActivityType;
  /** ISO 8601 time of the activity. */
  createdAt: string;
  /** The contact, with its current email; null when the contact no longer exists. */
  contact: { id: string; email: string } | null;
  emailId?: string;
  data: Record<string, unknown>;
}

/** The cursor of an item: `<epoch-ms>_<id>`. */
export const cursorOf = (item: { createdAt: string; id: string }): string =>
  `${Date.parse(item.createdAt)}_${item.id}`;

const CURSOR = /^(\d{1,15})_([^\s]{1,200})$/;
/** Exclusive upper bound of times (year 10000), so every time has a 4-digit-year ISO form. */
const MAX_TIME = 253_402_300_800_000;

/** The position a cursor `<epoch-ms>_<id>` designates, or null when malformed. */
export function parseCursor(cursor: string): FeedPosition | null {
  const match = CURSOR.exec(cursor);
  if (match === null) return null;
  const at = Number(match[1]);
  return at < MAX_TIME ? { at, id: match[2] ?? '' } : null;
}

/** Whether `item` comes after `position` in newest-first order. */
const isAfter = (item: ActivityItemDocument, position: FeedPosition): boolean => {
  const at = Date.parse(item.at);
  return at < position.at || (at === position.at && item._id < position.id);
};

/** Newest first: by time, then by id, both descending. */
const newestFirst = (a: ActivityItemDocument, b: ActivityItemDocument): number =>
  a.at === b.at ? (a._id < b._id ? 1 : a._id > b._id ? -1 : 0) : a.at < b.at ? 1 : -1;

function matches(item: ActivityItemDocument, query: FeedQuery): boolean {
  if (query.type !== undefined && item.type !== query.type) return false;
  const at = Date.parse(item.at);
  if (query.from !== undefined && at < query.from) return false;
  if (query.to !== undefined && at > query.to) return false;
  return query.after === undefined || isAfter(item, query.after);
}

/**
 * Up to `limit + 1` items matching `query`, newest first (one more than a page, so the caller
 * knows whether more follow).
 */
export async function readFeed(
  views: ViewStore,
  query: FeedQuery,
): Promise<ActivityItemDocument[]> {
  const wanted = query.limit + 1;
  const items = activityItems(views);
  if (query.contactId !== undefined) {
    const all = await items.find({ projectId: query.projectId, contactId: query.contactId });
    return all
      .filter((item) => matches(item, query))
      .sort(newestFirst)
      .slice(0, wanted);
  }

  const totals = await projectTotals(views, query.projectId);
  if (totals?.firstDay === undefined || totals.lastDay === undefined) return [];
  const upper = Math.min(
    query.to ?? Infinity,
    query.after?.at ?? Infinity,
    dayStart(totals.lastDay) + DAY_MS - 1,
  );
  const lower = Math.max(query.from ?? -Infinity, dayStart(totals.firstDay));
  const found: ActivityItemDocument[] = [];
  for (let day = floorTo(upper, DAY_MS); day >= floorTo(lower, DAY_MS); day -= DAY_MS) {
    if (countOf(await dayCounters(views, query.projectId, dayOf(day)), query.type) === 0) continue;
    const lastHour = Math.min(day + DAY_MS - HOUR_MS, floorTo(upper, HOUR_MS));
    for (let hour = lastHour; hour >= day && hour + HOUR_MS > lower; hour -= HOUR_MS) {
      const inHour = await hourCounters(views, query.projectId, hourOf(hour));
      if (countOf(inHour, query.type) === 0) continue;
      const lastMinute = Math.min(hour + HOUR_MS - MINUTE_MS, floorTo(upper, MINUTE_MS));
      for (
        let minute = lastMinute;
        minute >= hour && minute + MINUTE_MS > lower;
        minute -= MINUTE_MS
      ) {
        const filter: Filter = { projectId: query.projectId, minute: minuteOf(minute) };
        const inMinute = (await items.find(filter)).filter((item) => matches(item, query));
        found.push(...inMinute.sort(newestFirst));
        if (found.length >= wanted) return found.slice(0, wanted);
      }
    }
  }
  return found;
}

/**
 * Number of items matching the filters of `query` (its position ignored): from the counters, or
 * from the contact's items with a contact filter.
 */
export async function countFeed(views: ViewStore, query: FeedQuery): Promise<number> {
  if (query.contactId !== undefined) {
    const all = await activityItems(views).find({
      projectId: query.projectId,
      contactId: query.contactId,
    });
    return all.filter((item) => matches(item, { ...query, after: undefined })).length;
  }
  return countRange(views, query.projectId, query);
}

/**
 * The API form of feed items: each contact joined with its current email from the contacts view
 * (once per distinct contact of the page).
 */
export async function toActivityItems(
  views: ViewStore,
  projectId: string,
  documents: readonly ActivityItemDocument[],
): Promise<ActivityItem[]> {
  const contacts = views.collection<ContactViewDocument & ViewDocument>(CONTACTS_VIEW);
  const emails = new Map<string, string | null>();
  for (const contactId of new Set(documents.map((document) => document.contactId))) {
    const contact = await contacts.findOne({ _id: contactId, projectId });
    emails.set(contactId, contact?.email ?? null);
  }
  return documents.map((document) => {
    const email = emails.get(document.contactId) ?? null;
    return {
      id: document._id,
      type: document.type,
      createdAt: document.at,
      contact: email === null ? null : { id: document.contactId, email },
      ...(document.emailId === undefined ? {} : { emailId: document.emailId }),
      data: document.data,
    };
  });
}

/** Counts per type, every type present (0 when none). */
export type CountsByType = Record<ActivityType, number>;

/** Statistics of whole UTC days (GET /activity/stats). */
export interface ActivityStatsResponse {
  /** First and last UTC day of the range, `YYYY-MM-DD`, inclusive. */
  from: string;
  to: string;
  /** Items in the range. */
  total: number;
  byType: CountsByType;
  /** One entry per day of the range, oldest first, days without items included. */
  daily: { date: string; total: number; byType: CountsByType }[];
}

const zeroCounts = (): CountsByType =>
  Object.fromEntries(ACTIVITY_TYPES.map((type) => [type, 0])) as CountsByType;

/** Counts per type and per day over the UTC days `fromDay..toDay` (`YYYY-MM-DD`, inclusive). */
export async function readStats(
  views: ViewStore,
  projectId: string,
  fromDay: string,
  toDay: string,
): Promise<ActivityStatsResponse> {
  const byType = zeroCounts();
  const daily: ActivityStatsResponse['daily'] = [];
  let total = 0;
  for (let day = dayStart(fromDay); day <= dayStart(toDay); day += DAY_MS) {
    const date = dayOf(day);
    const counters = await dayCounters(views, projectId, date);
    const counts = zeroCounts();
    for (const type of ACTIVITY_TYPES) {
      const count = countOf(counters, type);
      counts[type] = count;
      byType[type] += count;
    }
    total += countOf(counters);
    daily.push({ date, total: countOf(counters), byType: counts });
  }
  return { from: fromDay, to: toDay, total, byType, daily };
}

/** The types present in a project with their all-time counts, most frequent first. */
export async function readTypes(
  views: ViewStore,
  projectId: string,
): Promise<{ type: ActivityType; count: number }[]> {
  const totals = await projectTotals(views, projectId);
  return ACTIVITY_TYPES.map((type) => ({ type, count: countOf(totals, type) }))
    .filter((entry) => entry.count > 0)
    .sort((a, b) => b.count - a.count || (a.type < b.type ? -1 : 1));
}
