/**
 * Reads of tracked events (spec part 4, "Events") from the views of `views.ts`. Costs, for a
 * project with E events, N names and B non-empty buckets: a page is O(B) for the bucket directory
 * plus O(BUCKET_SIZE) per bucket read; a contact's page is O(that contact's events); stats are
 * O(N × 30); names are O(N). None reads every event of the project.
 */
import { CONTACTS_VIEW, type ContactValue, type ContactViewDocument } from '@stamp/contracts';
import { cursorPage, type CursorPage, notFound } from '@stamp/http-kit';
import type { Filter, ViewCollection, ViewDocument, ViewStore } from '@stamp/platform';

import {
  bucketOf,
  dayOf,
  nameKey,
  type TrackedEventNameView,
  type TrackedEventView,
  type TrackedEventViews,
  trackedEventViews,
} from './views.ts';

/** A tracked event as the API answers it. */
export interface TrackedEventItem {
  /** Event id (UUIDv7). */
  id: string;
  name: string;
  contactId: string;
  /** The contact's id and current email; null when the contact no longer exists. */
  contact: { id: string; email: string } | null;
  data: Record<string, ContactValue>;
  /** ISO 8601 time the event was recorded. */
  createdAt: string;
}

/** A cursor page request: `cursor` is the log position of the previous page's last item. */
export interface EventPageQuery {
  /** 1..100 items. */
  limit: number;
  cursor?: number | undefined;
}

/** Answer of GET /events/stats. */
export interface TrackedEventStats {
  /** Events of the project, all time. */
  total: number;
  /** Events per name, all time, most frequent first (then by name). */
  names: { name: string; count: number }[];
  /**
   * The last {@link STATS_DAYS} UTC days, oldest first, ending today; days without events have
   * count 0. `byName` holds the names counted that day.
   */
  daily: { date: string; count: number; byName: Record<string, number> }[];
}

/** One event name of GET /events/names. */
export interface TrackedEventNameSummary {
  name: string;
  /** Events of that name. */
  count: number;
  /** ISO 8601 time of the latest event recorded under the name. */
  lastSeenAt: string;
}

/** Days covered by {@link TrackedEventStats.daily}. */
export const STATS_DAYS = 30;

/** Bucket directory entries read at a time while filling a page. */
const DIRECTORY_CHUNK = 64;

const DAY_MS = 86_400_000;

const byPositionDesc = { position: -1 } as const;

/** Queries over the tracked-event views. */
export class TrackedEventQueries {
  private readonly views: TrackedEventViews;
  private readonly contacts: ViewCollection<ContactViewDocument & ViewDocument>;
  private readonly now: () => number;

  /** @param now clock of the stats window, epoch ms. */
  constructor(views: ViewStore, now: () => number = Date.now) {
    this.views = trackedEventViews(views);
    this.contacts = views.collection<ContactViewDocument & ViewDocument>(CONTACTS_VIEW);
    this.now = now;
  }

  /**
   * Newest-first page of the project's events (log order), optionally of one name; `total` (first
   * page only) comes from the name counters.
   */
  async page(
    projectId: string,
    query: EventPageQuery & { name?: string | undefined },
  ): Promise<CursorPage<TrackedEventItem>> {
    const firstPage = query.cursor === undefined;
    const total = firstPage ? await this.countOf(projectId, query.name) : 0;
    const fetched =
      firstPage && total === 0 ? [] : await this.newestFirst(projectId, query, query.limit + 1);
    return this.toPage(projectId, fetched, query.limit, firstPage, total);
  }

  /**
   * Newest-first page of one contact's events.
   * @throws ApiError 404 CONTACT_NOT_FOUND when the contact is not in the project.
   */
  async contactPage(
    projectId: string,
    contactId: string,
    query: EventPageQuery,
  ): Promise<CursorPage<TrackedEventItem>> {
    const contact = await this.contacts.findOne({ _id: contactId, projectId });
    if (contact === null) throw notFound('CONTACT_NOT_FOUND', 'Contact not found');
    const filter: Filter = { projectId, contactId };
    const firstPage = query.cursor === undefined;
    const fetched = await this.views.events.find(
      firstPage ? filter : { ...filter, position: { $lt: query.cursor } },
      { sort: byPositionDesc, limit: query.limit + 1 },
    );
    const total = firstPage ? await this.views.events.countDocuments(filter) : 0;
    return this.toPage(projectId, fetched, query.limit, firstPage, total);
  }

  /** Counts per name and per day of the last {@link STATS_DAYS} UTC days, zero-filled. */
  async stats(projectId: string): Promise<TrackedEventStats> {
    const names = await this.liveNames(projectId);
    const today = Math.floor(this.now() / DAY_MS) * DAY_MS;
    const daily: TrackedEventStats['daily'] = [];
    for (let back = STATS_DAYS - 1; back >= 0; back--) {
      const date = dayOf(today - back * DAY_MS);
      const counted: [string, number][] = [];
      let count = 0;
      const documents = await this.views.days.find({ projectId, day: date });
      documents.sort((a, b) => compare(a.name, b.name));
      for (const document of documents) {
        if (document.count <= 0) continue;
        counted.push([document.name, document.count]);
        count += document.count;
      }
      // Entries, not assignments: an event name is a key like any other (`__proto__` too).
      daily.push({ date, count, byName: Object.fromEntries(counted) });
    }
    return {
      total: names.reduce((sum, { count }) => sum + count, 0),
      names: names
        .map(({ name, count }) => ({ name, count }))
        .sort((a, b) => b.count - a.count || compare(a.name, b.name)),
      daily,
    };
  }

  /** The project's event names with their counts and last-seen times, sorted by name. */
  async names(projectId: string): Promise<TrackedEventNameSummary[]> {
    return (await this.liveNames(projectId))
      .map(({ name, count, lastSeenAt }) => ({ name, count, lastSeenAt }))
      .sort((a, b) => compare(a.name, b.name));
  }

  /** Events of the project, or of one of its names, from the counters. */
  private async countOf(projectId: string, name: string | undefined): Promise<number> {
    if (name === undefined) {
      return (await this.liveNames(projectId)).reduce((sum, { count }) => sum + count, 0);
    }
    const counter = await this.views.names.findOne({ _id: nameKey(projectId, name) });
    return Math.max(0, counter?.count ?? 0);
  }

  private async liveNames(projectId: string): Promise<TrackedEventNameView[]> {
    const counters = await this.views.names.find({ projectId });
    return counters.filter((counter) => counter.count > 0);
  }

  /**
   * Up to `want` events with a position below the cursor, newest first: walks the bucket
   * directory from the newest bucket down and reads each bucket by indexed equality.
   */
  private async newestFirst(
    projectId: string,
    query: EventPageQuery & { name?: string | undefined },
    want: number,
  ): Promise<TrackedEventView[]> {
    const { cursor, name } = query;
    const found: TrackedEventView[] = [];
    let ceiling = cursor === undefined ? undefined : bucketOf(cursor - 1);
    while (found.length < want) {
      const directory = await this.views.buckets.find(
        ceiling === undefined ? { projectId } : { projectId, bucket: { $lte: ceiling } },
        { sort: { bucket: -1 }, limit: DIRECTORY_CHUNK },
      );
      for (const { bucket } of directory) {
        const filter: Filter = { projectId, bucket };
        if (name !== undefined) filter.name = name;
        if (cursor !== undefined) filter.position = { $lt: cursor };
        const documents = await this.views.events.find(filter, {
          sort: byPositionDesc,
          limit: want - found.length,
        });
        found.push(...documents);
        if (found.length >= want) return found;
      }
      const last = directory[directory.length - 1];
      if (directory.length < DIRECTORY_CHUNK || last === undefined) break;
      ceiling = last.bucket - 1;
    }
    return found;
  }

  /** The page of `fetched` (limit + 1 documents) with each contact's current email. */
  private async toPage(
    projectId: string,
    fetched: TrackedEventView[],
    limit: number,
    firstPage: boolean,
    total: number,
  ): Promise<CursorPage<TrackedEventItem>> {
    const page = cursorPage(
      fetched,
      limit,
      (document) => String(document.position),
      firstPage,
      total,
    );
    const emails = new Map<string, string | null>();
    for (const { contactId } of page.data) {
      if (emails.has(contactId)) continue;
      const contact = await this.contacts.findOne({ _id: contactId, projectId });
      emails.set(contactId, contact?.email ?? null);
    }
    return {
      ...page,
      data: page.data.map((document) => {
        const email = emails.get(document.contactId) ?? null;
        return {
          id: document._id,
          name: document.name,
          contactId: document.contactId,
          contact: email === null ? null : { id: document.contactId, email },
          data: document.data,
          createdAt: document.createdAt,
        };
      }),
    };
  }
}

/** Code-unit order of strings (stable across locales). */
function compare(a: string, b: string): number {
  if (a === b) return 0;
  return a < b ? -1 : 1;
}
