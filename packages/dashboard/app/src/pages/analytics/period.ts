/** The periods the analytics page offers, and the queries of the API each one means. */

/** A period's id. */
export type PeriodId = '24h' | '7d' | '30d' | '90d' | '365d';

/** The periods, in the order they are offered. */
export const PERIODS: readonly { value: PeriodId; label: string }[] = [
  { value: '24h', label: '24 hours' },
  { value: '7d', label: '7 days' },
  { value: '30d', label: '30 days' },
  { value: '90d', label: '90 days' },
  { value: '365d', label: '12 months' },
];

const DAYS: Record<PeriodId, number> = { '24h': 1, '7d': 7, '30d': 30, '90d': 90, '365d': 365 };

/** A UTC date `YYYY-MM-DD`, `days` days before `now`. */
function utcDate(now: Date, days: number): string {
  return new Date(now.getTime() - days * 86_400_000).toISOString().slice(0, 10);
}

/** The query of `GET /analytics/timeseries` for a period ending now. */
export function timeseriesQuery(
  period: PeriodId,
  now: Date,
): { granularity: 'day' | 'hour'; from?: string; to?: string } {
  if (period === '24h') return { granularity: 'hour' };
  return { granularity: 'day', from: utcDate(now, DAYS[period] - 1), to: utcDate(now, 0) };
}

/** The query of `GET /activity/stats` (whole UTC days) for a period ending today. */
export function statsQuery(period: PeriodId, now: Date): { from: string; to: string } {
  return { from: utcDate(now, DAYS[period] - 1), to: utcDate(now, 0) };
}

/** How a bucket's start is written on the chart's axis (buckets are UTC days or hours). */
export function bucketLabel(timestamp: string, granularity: 'day' | 'hour'): string {
  const options: Intl.DateTimeFormatOptions =
    granularity === 'hour'
      ? { hour: '2-digit', minute: '2-digit', timeZone: 'UTC', hour12: false }
      : { month: 'short', day: 'numeric', timeZone: 'UTC' };
  return new Intl.DateTimeFormat(undefined, options).format(new Date(timestamp));
}
