/**
 * Counters of the feed (`activityStats`): items per project and type, all time, per UTC day and
 * per UTC hour. The projection moves them with every item it adds or removes, so statistics and
 * totals are read from a few counters documents, never by scanning or sorting the feed.
 */
import { isDuplicateKey, type ViewStore } from '@stamp/platform';

import {
  type ActivityItemDocument,
  type ActivityStatsDocument,
  type ActivityType,
  activityItems,
  activityStats,
  countOf,
  DAY_MS,
  dayOf,
  dayStart,
  floorTo,
  HOUR_MS,
  hourOf,
  MINUTE_MS,
  minuteOf,
  type StatsScope,
  statsId,
  typeKey,
} from './items.ts';

/** An item as the counters see it. */
type CountedItem = Pick<ActivityItemDocument, 'projectId' | 'type' | 'at' | 'data'>;

/** The changes of one counters document: its key, increments and day bounds. */
interface CounterChange {
  projectId: string;
  scope: StatsScope;
  bucket: string;
  inc: Record<string, number>;
  firstDay?: string;
  lastDay?: string;
}

/**
 * Adds `delta` (+1 for an added item, -1 for a removed one) to the all-time, day and hour
 * counters of `item`'s project and type, and to those of its campaign (email items) or event
 * name (`event.triggered`); an added item also widens the project's first/last day.
 */
export async function bumpCounters(
  views: ViewStore,
  item: CountedItem,
  delta: 1 | -1,
): Promise<void> {
  await bumpCountersOf(views, [item], delta);
}

/**
 * {@link bumpCounters} of many items at once: each counters document they touch is written once
 * with the sum of their increments.
 */
export async function bumpCountersOf(
  views: ViewStore,
  items: readonly CountedItem[],
  delta: 1 | -1,
): Promise<void> {
  const changes = new Map<string, CounterChange>();
  for (const item of items) {
    const ms = Date.parse(item.at);
    const day = dayOf(ms);
    const key = `counts.${typeKey(item.type)}`;
    const buckets: [StatsScope, string][] = [
      ['total', ''],
      ['day', day],
      ['hour', hourOf(ms)],
    ];
    const { campaignId, name } = item.data;
    if (typeof campaignId === 'string' && item.type.startsWith('email.')) {
      buckets.push(['campaign', campaignId]);
    }
    if (item.type === 'event.triggered' && typeof name === 'string') {
      buckets.push(['event', name]);
    }
    for (const [scope, bucket] of buckets) {
      const id = statsId(scope, item.projectId, bucket);
      let change = changes.get(id);
      if (change === undefined) {
        change = { projectId: item.projectId, scope, bucket, inc: { total: 0 } };
        changes.set(id, change);
      }
      change.inc.total = (change.inc.total ?? 0) + delta;
      change.inc[key] = (change.inc[key] ?? 0) + delta;
      if (scope === 'total' && delta > 0) {
        if (change.firstDay === undefined || day < change.firstDay) change.firstDay = day;
        if (change.lastDay === undefined || day > change.lastDay) change.lastDay = day;
      }
    }
  }
  const stats = activityStats(views);
  for (const [id, change] of changes) {
    const update = {
      $inc: change.inc,
      $setOnInsert: { projectId: change.projectId, scope: change.scope, bucket: change.bucket },
      ...(change.firstDay === undefined || change.lastDay === undefined
        ? {}
        : { $min: { firstDay: change.firstDay }, $max: { lastDay: change.lastDay } }),
    };
    const filter = { _id: id };
    try {
      await stats.updateOne(filter, update, { upsert: true });
    } catch (error) {
      // Two first writes of one bucket raced (MongoDB); the document exists now.
      if (!isDuplicateKey(error)) throw error;
      await stats.updateOne(filter, update, { upsert: true });
    }
  }
}

/** The all-time counters of a project, or null before its first item. */
export function projectTotals(
  views: ViewStore,
  projectId: string,
): Promise<ActivityStatsDocument | null> {
  return activityStats(views).findOne({ _id: statsId('total', projectId) });
}

/** The counters of one UTC day (`YYYY-MM-DD`) of a project, or null when it had no item. */
export function dayCounters(
  views: ViewStore,
  projectId: string,
  day: string,
): Promise<ActivityStatsDocument | null> {
  return activityStats(views).findOne({ _id: statsId('day', projectId, day) });
}

/** The counters of one UTC hour (`YYYY-MM-DDTHH`) of a project, or null when it had no item. */
export function hourCounters(
  views: ViewStore,
  projectId: string,
  hour: string,
): Promise<ActivityStatsDocument | null> {
  return activityStats(views).findOne({ _id: statsId('hour', projectId, hour) });
}

/**
 * Number of items of a project (of `type` when given) with `from ≤ at ≤ to` (epoch ms, each
 * bound optional). The range is cut into whole days (day counters), whole hours at its edges
 * (hour counters) and the minutes of its edge hours (feed items by minute bucket), so the cost
 * depends on the number of days in the range, not on the number of items.
 */
export async function countRange(
  views: ViewStore,
  projectId: string,
  range: { type?: ActivityType | undefined; from?: number | undefined; to?: number | undefined },
): Promise<number> {
  const totals = await projectTotals(views, projectId);
  if (totals?.firstDay === undefined || totals.lastDay === undefined) return 0;
  if (range.from === undefined && range.to === undefined) return countOf(totals, range.type);
  const from = Math.max(range.from ?? -Infinity, dayStart(totals.firstDay));
  const to = Math.min(range.to ?? Infinity, dayStart(totals.lastDay) + DAY_MS - 1);
  if (from > to) return 0;

  const items = activityItems(views);
  const typeFilter = range.type === undefined ? {} : { type: range.type };
  const fromIso = new Date(from).toISOString();
  const toIso = new Date(to).toISOString();
  let count = 0;
  for (let day = floorTo(from, DAY_MS); day <= to; day += DAY_MS) {
    if (from <= day && day + DAY_MS - 1 <= to) {
      count += countOf(await dayCounters(views, projectId, dayOf(day)), range.type);
      continue;
    }
    if (countOf(await dayCounters(views, projectId, dayOf(day)), range.type) === 0) continue;
    const firstHour = Math.max(day, floorTo(from, HOUR_MS));
    for (let hour = firstHour; hour < day + DAY_MS && hour <= to; hour += HOUR_MS) {
      const inHour = countOf(await hourCounters(views, projectId, hourOf(hour)), range.type);
      if (inHour === 0) continue;
      if (from <= hour && hour + HOUR_MS - 1 <= to) {
        count += inHour;
        continue;
      }
      for (let minute = hour; minute < hour + HOUR_MS && minute <= to; minute += MINUTE_MS) {
        if (minute + MINUTE_MS - 1 < from) continue;
        count += await items.countDocuments({
          projectId,
          minute: minuteOf(minute),
          ...typeFilter,
          at: { $gte: fromIso, $lte: toIso },
        });
      }
    }
  }
  return count;
}
