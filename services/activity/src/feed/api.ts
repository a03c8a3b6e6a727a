/**
 * Activity feed routes (spec part 4, "Domains, activity, analytics, uploads"; secret key, mounted
 * by the gateway behind authentication): GET /activity, GET /activity/stats,
 * GET /activity/recent-count, GET /activity/types. Every answer is scoped to the caller's project.
 */
import {
  caller,
  cursorPage,
  cursorQuery,
  invalidCursor,
  parse,
  validationError,
} from '@stamp/http-kit';
import type { ViewStore } from '@stamp/platform';
import { type Request, type Response, Router } from 'express';
import { z } from 'zod';

import { countRange } from './counters.ts';
import { ACTIVITY_TYPES, DAY_MS, dayOf, dayStart, HOUR_MS } from './items.ts';
import {
  countFeed,
  cursorOf,
  type FeedQuery,
  parseCursor,
  readFeed,
  readStats,
  readTypes,
  toActivityItems,
} from './query.ts';

/** Dependencies of {@link activityRouter}. */
export interface ActivityRouterDeps {
  views: ViewStore;
  /** Clock (tests); `new Date()` by default. */
  now?: () => Date;
}

/** Default range of GET /activity/stats, in days (ending today). */
export const STATS_DEFAULT_DAYS = 30;
/** Largest range of GET /activity/stats, in days. */
export const STATS_MAX_DAYS = 366;

/** A UTC date, `YYYY-MM-DD`. */
export const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

/** An ISO 8601 time with an offset (`2025-01-31T12:00:00Z`) or a UTC date (`2025-01-31`). */
export const instant = z.union([z.iso.datetime({ offset: true }), z.iso.date()], {
  error: 'Expected an ISO 8601 date (YYYY-MM-DD) or date-time with an offset',
});

/** Epoch ms of a bound; a date-only `to` means the end of that UTC day. */
function boundOf(value: string | undefined, end: boolean): number | undefined {
  if (value === undefined) return undefined;
  const ms = Date.parse(value);
  return end && DATE_ONLY.test(value) ? ms + DAY_MS - 1 : ms;
}

const fromNotAfterTo = (query: { from?: string | undefined; to?: string | undefined }): boolean =>
  query.from === undefined ||
  query.to === undefined ||
  (boundOf(query.from, false) ?? 0) <= (boundOf(query.to, true) ?? 0);

const ORDER_ISSUE = { message: '`from` must not be after `to`', path: ['from'] };

/** Query of GET /activity. */
export const feedQuery = cursorQuery
  .extend({
    type: z.enum(ACTIVITY_TYPES).optional(),
    contactId: z.string().min(1).max(200).optional(),
    from: instant.optional(),
    to: instant.optional(),
  })
  .refine(fromNotAfterTo, ORDER_ISSUE);

/** Query of GET /activity/stats. */
export const statsQuery = z
  .object({ from: instant.optional(), to: instant.optional() })
  .refine(fromNotAfterTo, ORDER_ISSUE);

/** Query of GET /activity/recent-count. */
export const recentQuery = z.object({
  hours: z.coerce.number().int().min(1).max(720).default(24),
});

/**
 * The activity router.
 *
 * - `GET /activity`: query `limit` (1..100, default 20), `cursor` (`<epoch-ms>_<id>` of the last
 *   item of the previous page), `type` (an activity type), `contactId`, `from` / `to` (ISO 8601
 *   date-time with offset, or `YYYY-MM-DD`; a date-only `to` includes that whole UTC day; both
 *   inclusive). Newest first. Answers `{data: [{id, type, createdAt, contact: {id, email} | null,
 *   emailId?, data}], cursor, hasMore, total}`; `total` counts every match on the first page and
 *   is 0 on later pages.
 * - `GET /activity/stats`: query `from` / `to` (as above; whole UTC days, default the 30 days
 *   ending today, at most 366 days). Answers the shape of {@link readStats}: `{from, to, total, byType, daily}`.
 * - `GET /activity/recent-count`: query `hours` (1..720, default 24). Answers `{count, since,
 *   hours}`: items at or after `since` (ISO 8601, now minus `hours`).
 * - `GET /activity/types`: answers `{types: [{type, count}]}`, the types present in the project
 *   with their all-time counts, most frequent first.
 *
 * Errors: 422 VALIDATION_ERROR naming the field for a bad query value (unknown `type`, malformed
 * `cursor`, a time that is not ISO 8601, `from` after `to`, out-of-range `limit`, `hours` or
 * stats range).
 */
export function activityRouter(deps: ActivityRouterDeps): Router {
  const router = Router();
  const now = deps.now ?? (() => new Date());

  router.get('/activity', async (req: Request, res: Response) => {
    const { projectId } = caller(res);
    const query = parse(feedQuery, req.query);
    const after = query.cursor === undefined ? undefined : parseCursor(query.cursor);
    if (after === null) throw invalidCursor();
    const feed: FeedQuery = {
      projectId,
      limit: query.limit,
      after,
      type: query.type,
      contactId: query.contactId,
      from: boundOf(query.from, false),
      to: boundOf(query.to, true),
    };
    const fetched = await readFeed(deps.views, feed);
    const firstPage = after === undefined;
    const total = firstPage ? await countFeed(deps.views, feed) : 0;
    const items = await toActivityItems(deps.views, projectId, fetched);
    res.json(cursorPage(items, query.limit, cursorOf, firstPage, total));
  });

  router.get('/activity/stats', async (req: Request, res: Response) => {
    const { projectId } = caller(res);
    const query = parse(statsQuery, req.query);
    const today = dayStart(dayOf(now().getTime()));
    const given = {
      from: boundOf(query.from, false),
      to: boundOf(query.to, false),
    };
    const to = given.to === undefined ? Math.max(today, given.from ?? today) : given.to;
    const from = given.from ?? to - (STATS_DEFAULT_DAYS - 1) * DAY_MS;
    const fromDay = dayOf(from);
    const toDay = dayOf(to);
    const days = (dayStart(toDay) - dayStart(fromDay)) / DAY_MS + 1;
    if (days > STATS_MAX_DAYS) {
      throw validationError([
        {
          field: 'from',
          message: `The range may span at most ${STATS_MAX_DAYS} days`,
          code: 'too_big',
        },
      ]);
    }
    res.json(await readStats(deps.views, projectId, fromDay, toDay));
  });

  router.get('/activity/recent-count', async (req: Request, res: Response) => {
    const { projectId } = caller(res);
    const { hours } = parse(recentQuery, req.query);
    const since = now().getTime() - hours * HOUR_MS;
    const count = await countRange(deps.views, projectId, { from: since });
    res.json({ count, since: new Date(since).toISOString(), hours });
  });

  router.get('/activity/types', async (_req: Request, res: Response) => {
    const { projectId } = caller(res);
    res.json({ types: await readTypes(deps.views, projectId) });
  });

  return router;
}
