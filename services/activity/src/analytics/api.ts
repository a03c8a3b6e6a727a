/**
 * Email analytics (spec part 4, "Domains, activity, analytics, uploads"; secret key or a
 * member's session), read from the activity feed's counters (`activityStats`), never from the
 * feed itself.
 *
 * `GET /analytics/timeseries`: the cost depends on the range only. Query: `granularity` (`day`, default, or `hour`), `from` / `to` (ISO 8601 date-time with an
 * offset, or `YYYY-MM-DD`; a date-only `to` includes that UTC day); default the 30 days (day) or
 * 24 hours (hour) ending now; at most 366 days or 31 days (744 hours). Answers `{granularity, from,
 * to, series: [{timestamp, sent, delivered, opened, clicked, bounced}]}`, one point per UTC day or
 * hour of the range, zero-filled, oldest first; `timestamp` is the ISO 8601 start of the bucket.
 * The metrics count feed items: `email.sent` (accepted), `email.delivered`, `email.opened`,
 * `email.clicked` (a person's and automated alike) and `email.bounced`. A deleted contact's
 * emails leave the counts with it. 422 VALIDATION_ERROR for a bad query.
 *
 * `GET /analytics/campaign-stats?campaignId=` (repeatable, at most 100; default every campaign):
 * `{campaigns: [{campaignId, sent, delivered, opened, clicked, bounced}]}`, all time, most sent
 * first. `GET /analytics/top-campaigns?metric=&limit=` (metric one of the five, default
 * `opened`; limit 1..100, default 10): the same items, highest `metric` first.
 * `GET /analytics/top-events?limit=`: `{events: [{name, count}]}`, the tracked (and system) event
 * names most triggered, all time. Opens and clicks count every open and click, a person's and
 * automated alike (the campaign's own stats tell unique ones apart).
 */
import { caller, parse, validationError } from '@stamp/http-kit';
import type { ViewStore } from '@stamp/platform';
import { Router } from 'express';
import { z } from 'zod';

import { DATE_ONLY, instant } from '../feed/api.ts';
import {
  type ActivityStatsDocument,
  type ActivityType,
  activityStats,
  countOf,
  DAY_MS,
  dayOf,
  HOUR_MS,
  hourOf,
  statsId,
} from '../feed/items.ts';

/** The metrics of a point and the feed type each counts. */
const METRICS = {
  sent: 'email.sent',
  delivered: 'email.delivered',
  opened: 'email.opened',
  clicked: 'email.clicked',
  bounced: 'email.bounced',
} as const satisfies Record<string, ActivityType>;

/** One point of the series. */
export type TimeseriesPoint = { timestamp: string } & Record<keyof typeof METRICS, number>;

/** Query of GET /analytics/timeseries. */
export const timeseriesQuery = z.object({
  granularity: z.enum(['day', 'hour']).default('day'),
  from: instant.optional(),
  to: instant.optional(),
});

/** Widest ranges, in buckets. */
const MAX_BUCKETS = { day: 366, hour: 31 * 24 } as const;
/** Default ranges, in buckets ending with the current one. */
const DEFAULT_BUCKETS = { day: 30, hour: 24 } as const;

const metric = z.enum(['sent', 'delivered', 'opened', 'clicked', 'bounced']);
const limit = z.coerce.number().int().min(1).max(100).default(10);
/** Query of GET /analytics/campaign-stats. */
export const campaignStatsQuery = z.object({
  campaignId: z
    .union([z.string().min(1).max(200), z.array(z.string().min(1).max(200)).max(100)])
    .optional(),
});
/** Query of GET /analytics/top-campaigns. */
export const topCampaignsQuery = z.object({ metric: metric.default('opened'), limit });
/** Query of GET /analytics/top-events. */
export const topEventsQuery = z.object({ limit });

/** The metrics of a counters document. */
function metricsOf(counter: ActivityStatsDocument | null): Record<keyof typeof METRICS, number> {
  return {
    sent: countOf(counter, METRICS.sent),
    delivered: countOf(counter, METRICS.delivered),
    opened: countOf(counter, METRICS.opened),
    clicked: countOf(counter, METRICS.clicked),
    bounced: countOf(counter, METRICS.bounced),
  };
}

/** The analytics router (see the module comment). */
export function analyticsRouter(deps: { views: ViewStore; now?: () => Date }): Router {
  const router = Router();
  const now = deps.now ?? (() => new Date());

  router.get('/analytics/timeseries', async (req, res) => {
    const { projectId } = caller(res);
    const query = parse(timeseriesQuery, req.query);
    const step = query.granularity === 'day' ? DAY_MS : HOUR_MS;
    const floor = (ms: number) => ms - (ms % step);
    const toMs =
      query.to === undefined
        ? now().getTime()
        : Date.parse(query.to) + (DATE_ONLY.test(query.to) ? DAY_MS - 1 : 0);
    const last = floor(toMs);
    const first =
      query.from === undefined
        ? last - (DEFAULT_BUCKETS[query.granularity] - 1) * step
        : floor(Date.parse(query.from));
    if (first > last) {
      throw validationError([
        { field: 'from', message: '`from` must not be after `to`', code: 'invalid_range' },
      ]);
    }
    const buckets = (last - first) / step + 1;
    if (buckets > MAX_BUCKETS[query.granularity]) {
      throw validationError([
        {
          field: 'from',
          message: `The range may span at most ${MAX_BUCKETS[query.granularity]} ${query.granularity}s`,
          code: 'too_big',
        },
      ]);
    }
    const keyOf = query.granularity === 'day' ? dayOf : hourOf;
    // One range read over the counters' ids (`<scope>|<project>|<bucket>`, buckets sort by time).
    const counters = await activityStats(deps.views).find({
      _id: {
        $gte: statsId(query.granularity, projectId, keyOf(first)),
        $lte: statsId(query.granularity, projectId, keyOf(last)),
      },
    });
    const byBucket = new Map(counters.map((counter) => [counter.bucket, counter]));
    const series: TimeseriesPoint[] = [];
    for (let at = first; at <= last; at += step) {
      const counter = byBucket.get(keyOf(at)) ?? null;
      series.push({ timestamp: new Date(at).toISOString(), ...metricsOf(counter) });
    }
    res.json({
      granularity: query.granularity,
      from: new Date(first).toISOString(),
      to: new Date(last + step - 1).toISOString(),
      series,
    });
  });

  /** The campaign counters of the project (of `campaignIds` when given), as items. */
  async function campaignItems(projectId: string, campaignIds?: readonly string[]) {
    const filter: Record<string, unknown> =
      campaignIds === undefined
        ? { projectId, scope: 'campaign' }
        : { _id: { $in: campaignIds.map((id) => statsId('campaign', projectId, id)) } };
    const counters = await activityStats(deps.views).find(filter);
    return counters.map((counter) => ({ campaignId: counter.bucket, ...metricsOf(counter) }));
  }

  router.get('/analytics/campaign-stats', async (req, res) => {
    const { projectId } = caller(res);
    const query = parse(campaignStatsQuery, req.query);
    const ids = typeof query.campaignId === 'string' ? [query.campaignId] : query.campaignId;
    const items = await campaignItems(projectId, ids);
    items.sort((a, b) => b.sent - a.sent || a.campaignId.localeCompare(b.campaignId));
    res.json({ campaigns: items });
  });

  router.get('/analytics/top-campaigns', async (req, res) => {
    const { projectId } = caller(res);
    const query = parse(topCampaignsQuery, req.query);
    const items = await campaignItems(projectId);
    items.sort(
      (a, b) => b[query.metric] - a[query.metric] || a.campaignId.localeCompare(b.campaignId),
    );
    res.json({ metric: query.metric, campaigns: items.slice(0, query.limit) });
  });

  router.get('/analytics/top-events', async (req, res) => {
    const { projectId } = caller(res);
    const query = parse(topEventsQuery, req.query);
    const counters = await activityStats(deps.views).find({ projectId, scope: 'event' });
    const events = counters
      .map((counter) => ({ name: counter.bucket, count: countOf(counter, 'event.triggered') }))
      .filter((event) => event.count > 0)
      .sort((a, b) => b.count - a.count || a.name.localeCompare(b.name));
    res.json({ events: events.slice(0, query.limit) });
  });

  return router;
}
