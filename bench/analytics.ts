import { projectActivity } from '@stamp/activity';
import { createLogger, newId, openEmbeddedPlatform, type RecordedEvent } from '@stamp/platform';

import { benchDirectory, figure, KEYS, startProcess, startStamp } from './harness.ts';

/**
 * `GET /analytics/timeseries` at EVENTS (default 1,000,000) email events spread over the last 90
 * days. Stamp is started once in a fresh data folder (creating its project) and stopped; the
 * events of EVENTS / 4 emails (queued, delivered, opened, clicked, their times spread evenly over
 * 90 days) are then run through the activity service's own projection into that folder's views
 * (the event store stamps events with the time of their append, so a log of the past cannot be
 * written through it); Stamp is started again on the folder and measured: the 90-day daily series
 * and the 31-day hourly series (744 points), SAMPLES (default 200) requests each, p50 and p95,
 * beside a bare Express route answering a page of the same run as the baseline.
 */
const events = Number(process.env.EVENTS ?? 1_000_000);
const samples = Number(process.env.SAMPLES ?? 200);
const dataDir = benchDirectory('stamp-analytics-');

await (await startStamp({ STAMP_DATA_DIR: dataDir })).stop();
const logger = createLogger({ level: 'warn' });
const platform = openEmbeddedPlatform({ dataDir, logger });
const [first] = await platform.store.readAll({ after: 0, categories: ['project'], limit: 1 });
const projectId = first?.streamId.slice('project-'.length) ?? '';
const emails = Math.floor(events / 4);
const span = 90 * 86_400_000;
const start = Date.now() - span;
const seeded = performance.now();
let position = 0;
for (let index = 0; index < emails; index += 1) {
  const emailId = newId();
  const at = start + Math.floor((index * span) / emails);
  const metadata = { projectId, correlationId: 'bench', subjectId: `contact-${index % 5000}` };
  const data = {
    emailId,
    contactId: `contact-${index % 5000}`,
    subject: 'Weekly news',
    automated: false,
  };
  const stream: [string, Record<string, unknown>][] = [
    [
      'EmailQueued',
      {
        ...data,
        to: { email: `r${index}@example.org` },
        from: { email: 'n@x.test' },
        sandbox: true,
      },
    ],
    ['EmailSent', { messageId: emailId, response: '250 OK', transport: 'outbox', sentAt: '' }],
    ['EmailOpened', { ...data, openedAt: '' }],
    ['EmailClicked', { ...data, url: 'https://example.org/', clickedAt: '' }],
  ];
  for (const [revision, [type, body]] of stream.entries()) {
    position += 1;
    const event: RecordedEvent = {
      id: newId(at),
      streamId: `email-${emailId}`,
      type,
      data: body,
      metadata,
      revision,
      position,
      createdAt: new Date(at + revision * 60_000).toISOString(),
      schemaVersion: 1,
    };
    await projectActivity(platform.views, event);
  }
}
await platform.views.flush();
await platform.close();
figure('analytics.events', emails * 4, 'events');
figure('analytics.projection_time', (performance.now() - seeded) / 1000, 's');

const stamp = await startStamp({ STAMP_DATA_DIR: dataDir });
const headers = { authorization: `Bearer ${KEYS.secretKey}` };

async function sample(base: string, path: string, withKey: boolean): Promise<number[]> {
  const times: number[] = [];
  for (let index = 0; index < samples; index += 1) {
    const started = performance.now();
    const response = await fetch(base + path, withKey ? { headers } : {});
    const body = (await response.json()) as { series?: { sent: number }[] };
    if (response.status !== 200) throw new Error(`${path}: ${response.status}`);
    if (withKey && (body.series?.reduce((sum, point) => sum + point.sent, 0) ?? 0) === 0) {
      throw new Error(`${path}: an empty series`);
    }
    times.push(performance.now() - started);
  }
  return times;
}
const quantile = (values: number[], q: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
};

const from = new Date(Date.now() - 89 * 86_400_000).toISOString().slice(0, 10);
const daily = await sample(stamp.url, `/analytics/timeseries?granularity=day&from=${from}`, true);
const hourFrom = new Date(Date.now() - 743 * 3_600_000).toISOString();
const hourly = await sample(
  stamp.url,
  `/analytics/timeseries?granularity=hour&from=${encodeURIComponent(hourFrom)}`,
  true,
);
await stamp.stop();
const bare = await startProcess('bench/bare-server.ts', {});
const baseline = await sample(bare.url, '/page', false);
await bare.stop();

figure('analytics.daily_90_p50', quantile(daily, 0.5), 'ms');
figure('analytics.daily_90_p95', quantile(daily, 0.95), 'ms');
figure('analytics.hourly_744_p50', quantile(hourly, 0.5), 'ms');
figure('analytics.hourly_744_p95', quantile(hourly, 0.95), 'ms');
figure('bare_express_page.p95', quantile(baseline, 0.95), 'ms');
figure('analytics.daily_p95_ratio_to_bare', quantile(daily, 0.95) / quantile(baseline, 0.95), 'x');
