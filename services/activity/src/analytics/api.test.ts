/**
 * GET /analytics/timeseries over HTTP on the embedded platform: email events appended to the
 * log reach the hour and day counters, and the series is zero-filled around them.
 */
import type { AwaitViews } from '@stamp/contracts';
import { type EmbeddedPlatform, newId } from '@stamp/platform';
import type { ServedRouter } from '@stamp/testkit/http.ts';

import { type ActivityBench, startActivityBench } from '../testing.ts';

let bench: ActivityBench;
let platform: EmbeddedPlatform;
let served: ServedRouter;
let awaitViews: AwaitViews;

beforeAll(async () => {
  bench = await startActivityBench();
  ({ platform, served, awaitViews } = bench);
});

afterAll(async () => {
  await bench.close();
});

/** Appends an email of project `projectId` with `outcomes` after its EmailQueued. */
async function email(
  projectId: string,
  outcomes: { type: string; data: object }[],
  extra: Record<string, string> = {},
) {
  const emailId = newId();
  const metadata = { projectId, correlationId: 'test', subjectId: 'c1' };
  const queued = {
    type: 'EmailQueued',
    data: {
      emailId,
      contactId: 'c1',
      to: { email: 'ada@example.org' },
      from: { email: 'hello@example.test' },
      subject: 'Hi',
      html: '<p>Hi</p>',
      headers: {},
      attachments: [],
      sandbox: true,
      ...extra,
    },
  };
  return platform.store.append([
    {
      streamId: `email-${emailId}`,
      expectedRevision: 'no_stream',
      events: [queued, ...outcomes].map((event) => ({ ...event, metadata })),
    },
  ]);
}

interface Series {
  granularity: string;
  from: string;
  to: string;
  series: { timestamp: string; sent: number; delivered: number; opened: number }[];
}

it('counts the emails of the project per hour and per day, zero-filled', async () => {
  const sent = {
    type: 'EmailSent',
    data: {
      messageId: 'm',
      response: '250',
      transport: 'outbox',
      sentAt: new Date().toISOString(),
    },
  };
  const opened = {
    type: 'EmailOpened',
    data: { emailId: 'x', subject: 'Hi', automated: false, openedAt: new Date().toISOString() },
  };
  await email('p1', [sent, opened]);
  await email('p1', [sent]);
  const { position } = await email('p2', [sent]);
  await awaitViews(position);

  const hourly = (await served.request('GET', '/analytics/timeseries?granularity=hour'))
    .body as Series;
  expect(hourly.granularity).toBe('hour');
  expect(hourly.series).toHaveLength(24);
  const now = hourly.series.at(-1);
  expect(now).toMatchObject({ sent: 2, delivered: 2, opened: 1, clicked: 0, bounced: 0 });
  expect(hourly.series.slice(0, -1).every((point) => point.sent === 0)).toBe(true);
  expect(
    Date.parse(hourly.series[1]?.timestamp ?? '') - Date.parse(hourly.series[0]?.timestamp ?? ''),
  ).toBe(3_600_000);

  const today = new Date().toISOString().slice(0, 10);
  const from = new Date(Date.now() - 100 * 86_400_000).toISOString().slice(0, 10);
  const daily = (await served.request('GET', `/analytics/timeseries?from=${from}&to=${today}`))
    .body as Series;
  expect(daily.series).toHaveLength(101);
  expect(daily.series.at(-1)).toMatchObject({ timestamp: `${today}T00:00:00.000Z`, sent: 2 });
  expect(daily.series[0]?.timestamp).toBe(`${from}T00:00:00.000Z`);
  expect(daily.to).toBe(`${today}T23:59:59.999Z`);
});

it('refuses bad ranges and values with 422', async () => {
  for (const query of [
    '?granularity=week',
    '?from=yesterday',
    '?from=2026-02-01&to=2026-01-01',
    '?from=2020-01-01&to=2026-01-01',
    '?granularity=hour&from=2026-01-01&to=2026-03-01',
  ]) {
    const refused = await served.request('GET', `/analytics/timeseries${query}`);
    expect(refused.status).toBe(422);
  }
});

it('counts campaigns and event names, all time', async () => {
  const { position: emailed } = await email('p1', [], { campaignId: 'k1' });
  await email(
    'p1',
    [
      {
        type: 'EmailOpened',
        data: { emailId: 'x', subject: 'Hi', automated: false, openedAt: '' },
      },
    ],
    { campaignId: 'k2' },
  );
  await email('p1', [], { campaignId: 'k2' });
  const tracked = async (name: string) => {
    const id = newId();
    return platform.store.append([
      {
        streamId: `trackedEvent-${id}`,
        expectedRevision: 'no_stream',
        events: [
          {
            id,
            type: 'EventTracked',
            data: { name, contactId: 'c1', email: 'ada@example.org', data: {} },
            metadata: { projectId: 'p1', correlationId: 'test', subjectId: 'c1' },
          },
        ],
      },
    ]);
  };
  await tracked('signed-up');
  await tracked('signed-up');
  const { position } = await tracked('paid');
  await awaitViews(Math.max(position, emailed));

  const stats = (await served.request('GET', '/analytics/campaign-stats')).body as {
    campaigns: { campaignId: string; sent: number; opened: number }[];
  };
  expect(stats.campaigns).toEqual([
    { campaignId: 'k2', sent: 2, delivered: 0, opened: 1, clicked: 0, bounced: 0 },
    { campaignId: 'k1', sent: 1, delivered: 0, opened: 0, clicked: 0, bounced: 0 },
  ]);
  const one = await served.request('GET', '/analytics/campaign-stats?campaignId=k1');
  expect((one.body as typeof stats).campaigns.map((item) => item.campaignId)).toEqual(['k1']);
  const top = await served.request('GET', '/analytics/top-campaigns?metric=opened&limit=1');
  expect(top.body).toEqual({
    metric: 'opened',
    campaigns: [{ campaignId: 'k2', sent: 2, delivered: 0, opened: 1, clicked: 0, bounced: 0 }],
  });
  const events = await served.request('GET', '/analytics/top-events');
  expect(events.body).toEqual({
    events: [
      { name: 'signed-up', count: 2 },
      { name: 'paid', count: 1 },
    ],
  });
  for (const query of ['/analytics/top-campaigns?metric=rate', '/analytics/top-events?limit=0']) {
    expect((await served.request('GET', query)).status).toBe(422);
  }
});
