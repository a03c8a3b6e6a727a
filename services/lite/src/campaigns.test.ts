/**
 * Campaigns over real sockets on the embedded platform (spec part 4 "Campaigns"): validation,
 * states and their conflicts, audiences (ALL, SEGMENT, FILTERED), scheduling on durable timers,
 * cancellation, test sends, stats and activity, with delivery to a real SMTP sink and the sender
 * domain verified through a real DNS server.
 */
import { startDnsServer, type TestDnsServer } from '@stamp/testkit/dns-server.ts';
import { eventually } from '@stamp/testkit/eventually.ts';
import { startSmtpSink } from '@stamp/testkit/smtp-sink.ts';

import type { Stamp } from './app.ts';
import { call, startTestStamp, TEST_KEYS } from './testing.ts';

type Sink = Awaited<ReturnType<typeof startSmtpSink>>;

interface Campaign {
  id: string;
  name: string;
  status: string;
  type: string;
  audienceType: string;
  segmentId: string | null;
  audienceFilter: unknown;
  audienceCondition: unknown;
  scheduledAt: string | null;
  recipients: number | null;
}

const sk = TEST_KEYS.secretKey;
let dns: TestDnsServer;
let sink: Sink;
let stamp: Stamp;

const api = (method: string, path: string, body?: unknown) =>
  call(stamp.url, sk, method, path, body);

async function statusReached(id: string, status: string): Promise<Campaign> {
  return eventually(`campaign ${id} ${status}`, async () => {
    const campaign = (await api('GET', `/campaigns/${id}`)).body as Campaign;
    return campaign.status === status ? campaign : undefined;
  });
}

/** Messages of the sink whose subject starts with `prefix`, as raw text. */
const messagesWith = (prefix: string): string[] =>
  sink.messages
    .map((message) => message.raw.toString('utf8'))
    .filter((raw) => new RegExp(`^Subject: ${prefix}`, 'm').test(raw));

const fields = {
  name: 'November news',
  subject: 'News for {{ firstName | default: "you" }}',
  body: '<p>Hello {{ firstName }}, your plan is {{ data.plan }}</p>',
  from: 'news@campaigns.test',
  fromName: 'Acme News',
  audienceType: 'ALL',
};

beforeAll(async () => {
  dns = await startDnsServer({});
  sink = await startSmtpSink();
  stamp = await startTestStamp({ STAMP_SMTP_URL: sink.url, STAMP_DNS_SERVERS: dns.address });
  const domain = (await api('POST', '/domains', { domain: 'campaigns.test' })).body as {
    id: string;
    records: { purpose: string; name: string; value: string }[];
  };
  const dkim = domain.records.find((record) => record.purpose === 'DKIM')!;
  dns.set(dkim.name, { TXT: [dkim.value] });
  expect((await api('GET', `/domains/${domain.id}/verify`)).body).toMatchObject({
    status: 'VERIFIED',
  });
  const people = [
    { email: 'ada@example.org', subscribed: true, data: { firstName: 'Ada', plan: 'pro' } },
    { email: 'grace@example.org', subscribed: true, data: { firstName: 'Grace', plan: 'free' } },
    { email: 'alan@example.org', subscribed: true, data: { firstName: 'Alan', plan: 'pro' } },
    { email: 'gone@example.org', subscribed: false, data: { firstName: 'Gone', plan: 'pro' } },
  ];
  for (const person of people) expect((await api('POST', '/contacts', person)).status).toBe(201);
}, 60_000);

afterAll(async () => {
  await stamp.close();
  await sink.close();
  await dns.close();
});

describe('creating and editing', () => {
  it('answers the spec wrapper, with type and the Plunk alias of the filter', async () => {
    const created = await api('POST', '/campaigns', {
      ...fields,
      audienceType: 'FILTERED',
      audienceCondition: {
        logic: 'AND',
        groups: [{ filters: [{ field: 'data.plan', operator: 'equals', value: 'pro' }] }],
      },
    });
    expect(created.status).toBe(201);
    const { success, data } = created.body as { success: boolean; data: Campaign };
    expect(success).toBe(true);
    expect(data).toMatchObject({
      name: 'November news',
      status: 'DRAFT',
      type: 'FILTERED',
      audienceType: 'FILTERED',
      scheduledAt: null,
      segmentId: null,
    });
    expect(data.audienceFilter).toEqual(data.audienceCondition);
    expect(data.audienceFilter).toMatchObject({ logic: 'AND' });
    expect((await api('GET', `/campaigns/${data.id}`)).body).toMatchObject({ id: data.id });
    const listed = (await api('GET', '/campaigns')).body as Campaign[];
    expect(listed.map((campaign) => campaign.id)).toContain(data.id);
  });

  it('refuses bodies that break the rules, naming the field', async () => {
    const missing = await api('POST', '/campaigns', { name: 'x' });
    expect(missing.status).toBe(422);
    expect(JSON.stringify(missing.body)).toContain('subject');

    const noSegment = await api('POST', '/campaigns', { ...fields, audienceType: 'SEGMENT' });
    expect(noSegment.status).toBe(422);
    expect(noSegment.body).toMatchObject({ error: { errors: [{ field: 'segmentId' }] } });

    const noFilter = await api('POST', '/campaigns', { ...fields, audienceType: 'FILTERED' });
    expect(noFilter.status).toBe(422);
    expect(noFilter.body).toMatchObject({ error: { errors: [{ field: 'audienceFilter' }] } });

    const badFilter = await api('POST', '/campaigns', {
      ...fields,
      audienceType: 'FILTERED',
      audienceFilter: { logic: 'AND', groups: [{ filters: [{ field: 'email', operator: 'is' }] }] },
    });
    expect(badFilter.status).toBe(422);
    expect(JSON.stringify(badFilter.body)).toContain('audienceFilter.groups.0.filters.0.operator');

    const unknownSegment = await api('POST', '/campaigns', {
      ...fields,
      audienceType: 'SEGMENT',
      segmentId: 'no-such-segment',
    });
    expect(unknownSegment.status).toBe(404);
    expect(unknownSegment.body).toMatchObject({ error: { code: 'SEGMENT_NOT_FOUND' } });

    const unverified = await api('POST', '/campaigns', { ...fields, from: 'news@elsewhere.test' });
    expect(unverified.status).toBe(403);
    expect(unverified.body).toMatchObject({ error: { code: 'DOMAIN_NOT_VERIFIED' } });

    expect((await api('GET', '/campaigns/no-such-campaign')).body).toMatchObject({
      error: { code: 'CAMPAIGN_NOT_FOUND' },
    });
  });

  it('replaces a draft with PUT and duplicates it into a new draft', async () => {
    const created = (await api('POST', '/campaigns', fields)).body as { data: Campaign };
    const id = created.data.id;
    const replaced = await api('PUT', `/campaigns/${id}`, { ...fields, name: 'December news' });
    expect(replaced.status).toBe(200);
    expect(replaced.body).toMatchObject({ name: 'December news', status: 'DRAFT' });
    const copy = await api('POST', `/campaigns/${id}/duplicate`);
    expect(copy.status).toBe(201);
    const duplicate = copy.body as Campaign;
    expect(duplicate).toMatchObject({ name: 'December news (copy)', status: 'DRAFT' });
    expect(duplicate.id).not.toBe(id);
    expect((await api('DELETE', `/campaigns/${duplicate.id}`)).status).toBe(200);
    expect((await api('GET', `/campaigns/${duplicate.id}`)).status).toBe(404);
  });
});

describe('sending', () => {
  it('sends one personalised email to every subscribed contact, with stats and activity', async () => {
    const created = (
      await api('POST', '/campaigns', { ...fields, subject: 'All: {{ firstName }}' })
    ).body as { data: Campaign };
    const id = created.data.id;
    const started = await api('POST', `/campaigns/${id}/send`);
    expect(started.status).toBe(200);
    expect(['SENDING', 'SENT']).toContain((started.body as Campaign).status);
    const sent = await statusReached(id, 'SENT');
    expect(sent.recipients).toBe(3);
    await eventually('three messages', async () =>
      messagesWith('All: ').length === 3 ? true : undefined,
    );
    const raw = messagesWith('All: ');
    const subjects = raw.map((text) => /^Subject: (.*)$/m.exec(text)?.[1]).sort();
    expect(subjects).toEqual(['All: Ada', 'All: Alan', 'All: Grace']);
    const ada = raw.find((text) => text.includes('Subject: All: Ada'))!;
    expect(ada).toContain('Hello Ada, your plan is pro');
    expect(ada).toMatch(/^List-Unsubscribe:\s+<http[^>]+\/unsubscribe\//m);
    expect(ada).toMatch(/^List-Unsubscribe-Post: List-Unsubscribe=One-Click/m);
    expect(ada).toMatch(/^DKIM-Signature: .*d=campaigns\.test;/m);
    expect(ada).toMatch(/^From: "?Acme News"? <news@campaigns\.test>/m);

    const stats = await eventually('delivered stats', async () => {
      const got = (await api('GET', `/campaigns/${id}/stats`)).body as { delivered: number };
      return got.delivered === 3 ? got : undefined;
    });
    expect(stats).toMatchObject({
      status: 'SENT',
      recipients: 3,
      sent: 3,
      queued: 0,
      delivered: 3,
      failed: 0,
      opened: 0,
      clicked: 0,
      rates: { delivery: 1 },
    });

    // Every email event carries the campaign; the feed has campaign.sent.
    const activity = await eventually('campaign.sent in the feed', async () => {
      const got = (await api('GET', '/activity?limit=100')).body as {
        data: { type: string; data?: Record<string, unknown> }[];
      };
      return got.data.some((item) => item.type === 'campaign.sent') ? got : undefined;
    });
    const emailItems = activity.data.filter(
      (item) => item.type === 'email.sent' && item.data?.campaignId === id,
    );
    expect(emailItems).toHaveLength(3);

    // A sent campaign is no longer edited, sent or cancelled; it may be deleted.
    const edit = await api('PUT', `/campaigns/${id}`, fields);
    expect(edit.status).toBe(409);
    expect(JSON.stringify(edit.body)).toContain('SENT');
    expect((await api('POST', `/campaigns/${id}/send`)).status).toBe(409);
    expect((await api('POST', `/campaigns/${id}/cancel`)).status).toBe(409);
  });

  it('sends to the subscribed members of a segment and to a filter', async () => {
    const segment = (await api('POST', '/segments', { name: 'Beta', type: 'STATIC' })).body as {
      id: string;
    };
    await api('POST', `/segments/${segment.id}/members`, {
      emails: ['grace@example.org', 'gone@example.org'],
    });
    const bySegment = (
      (
        await api('POST', '/campaigns', {
          ...fields,
          subject: 'Segment: {{ firstName }}',
          audienceType: 'SEGMENT',
          segmentId: segment.id,
        })
      ).body as { data: Campaign }
    ).data;
    const byFilter = (
      (
        await api('POST', '/campaigns', {
          ...fields,
          subject: 'Filter: {{ firstName }}',
          audienceType: 'FILTERED',
          audienceFilter: {
            logic: 'AND',
            groups: [{ filters: [{ field: 'data.plan', operator: 'equals', value: 'pro' }] }],
          },
        })
      ).body as { data: Campaign }
    ).data;
    await api('POST', `/campaigns/${bySegment.id}/send`);
    await api('POST', `/campaigns/${byFilter.id}/send`);
    expect((await statusReached(bySegment.id, 'SENT')).recipients).toBe(1);
    expect((await statusReached(byFilter.id, 'SENT')).recipients).toBe(2);
    await eventually('segment and filter messages', async () =>
      messagesWith('Segment: ').length === 1 && messagesWith('Filter: ').length === 2
        ? true
        : undefined,
    );
    expect(messagesWith('Segment: ')[0]).toContain('Subject: Segment: Grace');
  });

  it('schedules on a durable timer, keeps the segment and itself while scheduled, then sends', async () => {
    const segment = (await api('POST', '/segments', { name: 'Later', type: 'STATIC' })).body as {
      id: string;
    };
    await api('POST', `/segments/${segment.id}/members`, { emails: ['ada@example.org'] });
    const created = (
      (
        await api('POST', '/campaigns', {
          ...fields,
          subject: 'Scheduled: {{ firstName }}',
          audienceType: 'SEGMENT',
          segmentId: segment.id,
        })
      ).body as { data: Campaign }
    ).data;
    const scheduledFor = new Date(Date.now() + 1500).toISOString();
    const scheduled = await api('POST', `/campaigns/${created.id}/send`, { scheduledFor });
    expect(scheduled.body).toMatchObject({ status: 'SCHEDULED', scheduledAt: scheduledFor });

    const upcoming = JSON.stringify((await api('GET', '/activity/upcoming')).body);
    expect(upcoming).toContain(created.id);
    const deleteCampaign = await api('DELETE', `/campaigns/${created.id}`);
    expect(deleteCampaign.status).toBe(409);
    expect(JSON.stringify(deleteCampaign.body)).toContain('SCHEDULED');
    const deleteSegment = await api('DELETE', `/segments/${segment.id}`);
    expect(deleteSegment.status).toBe(409);
    expect(messagesWith('Scheduled: ')).toHaveLength(0);

    await statusReached(created.id, 'SENT');
    await eventually('the scheduled message', async () =>
      messagesWith('Scheduled: ').length === 1 ? true : undefined,
    );
    const feed = (await api('GET', '/activity?type=campaign.scheduled')).body as {
      data: { data?: { campaignId?: string } }[];
    };
    expect(feed.data.some((item) => item.data?.campaignId === created.id)).toBe(true);
    expect((await api('DELETE', `/segments/${segment.id}`)).status).toBe(200);
  });

  it('never sends a cancelled schedule', async () => {
    const created = (
      (await api('POST', '/campaigns', { ...fields, subject: 'Cancelled: {{ firstName }}' }))
        .body as { data: Campaign }
    ).data;
    const scheduledFor = new Date(Date.now() + 800).toISOString();
    await api('POST', `/campaigns/${created.id}/send`, { scheduledFor });
    const cancelled = await api('POST', `/campaigns/${created.id}/cancel`);
    expect(cancelled.body).toMatchObject({ status: 'CANCELLED' });
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(((await api('GET', `/campaigns/${created.id}`)).body as Campaign).status).toBe(
      'CANCELLED',
    );
    expect(messagesWith('Cancelled: ')).toHaveLength(0);
    expect((await api('DELETE', `/campaigns/${created.id}`)).status).toBe(200);
  });

  it('sends a test email that no stats count', async () => {
    const created = (
      (await api('POST', '/campaigns', { ...fields, subject: 'Trial for {{ email }}' })).body as {
        data: Campaign;
      }
    ).data;
    const tested = await api('POST', `/campaigns/${created.id}/test`, {
      email: 'reviewer@example.org',
    });
    expect(tested.status).toBe(200);
    expect(tested.body).toMatchObject({ success: true });
    await eventually('the test message', async () =>
      messagesWith('\\[Test\\] Trial for reviewer@example.org').length === 1 ? true : undefined,
    );
    const stats = (await api('GET', `/campaigns/${created.id}/stats`)).body;
    expect(stats).toMatchObject({ status: 'DRAFT', recipients: 0, sent: 0, delivered: 0 });
    expect((await api('POST', `/campaigns/${created.id}/test`, { email: 'nope' })).status).toBe(
      422,
    );
  });
});
