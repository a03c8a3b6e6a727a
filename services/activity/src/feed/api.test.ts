/** The activity routes over a real socket, on views projected from recorded events. */
import { CONTACTS_VIEW, type ContactViewDocument } from '@stamp/contracts';
import {
  createLogger,
  type EmbeddedPlatform,
  openEmbeddedPlatform,
  type RecordedEvent,
  type ViewDocument,
} from '@stamp/platform';
import { serveRouter, type ServedRouter } from '@stamp/testkit/http.ts';

import { activityRouter } from './api.ts';
import { contactEvent, emailEvent, queuedData, trackedEvent } from './fixtures.ts';
import { createActivityIndexes } from './items.ts';
import { projectActivity } from './projection.ts';

const NOW = new Date('2025-03-10T12:00:00.000Z');

interface Page {
  data: {
    id: string;
    type: string;
    createdAt: string;
    contact: { id: string; email: string } | null;
    emailId?: string;
    data: Record<string, unknown>;
  }[];
  cursor: string;
  hasMore: boolean;
  total: number;
}

interface ErrorBody {
  success: false;
  error: { code: string; statusCode: number; errors?: { field: string; code: string }[] };
}

const burst = Array.from({ length: 10 }, (_, k) =>
  trackedEvent(
    { name: 'page-view', contactId: 'c1', data: { k } },
    {
      at: new Date(Date.parse('2025-03-10T11:00:00.000Z') + k * 7000).toISOString(),
      id: `b-0${k}`,
    },
  ),
);

const events: RecordedEvent[] = [
  trackedEvent(
    { name: 'signed-up', contactId: 'c1' },
    { at: '2025-02-01T09:00:00.000Z', id: 't-a' },
  ),
  trackedEvent({ name: 'orphan', contactId: 'c3' }, { at: '2025-02-20T00:00:00.000Z', id: 'n-1' }),
  emailEvent('m1', 'EmailQueued', queuedData('m1', 'c1', 'Welcome', 'tpl1'), {
    at: '2025-03-01T10:00:00.000Z',
    id: 'q-1',
  }),
  emailEvent(
    'm1',
    'EmailSent',
    { messageId: '<1@x>', response: '250 OK', transport: 'smtp', sentAt: '' },
    { at: '2025-03-01T10:00:01.000Z', id: 's-1', revision: 1 },
  ),
  emailEvent('m2', 'EmailQueued', queuedData('m2', 'c2', 'Receipt'), {
    at: '2025-03-05T23:59:59.999Z',
    id: 'q-2',
  }),
  emailEvent(
    'm2',
    'EmailFailed',
    { error: '550 mailbox <c2@example.org> unknown', failedAt: '' },
    { at: '2025-03-06T00:00:00.000Z', id: 'f-2', revision: 1 },
  ),
  contactEvent('c2', 'ContactUnsubscribed', { at: '2025-03-09T08:00:00.000Z', id: 'u-2' }),
  trackedEvent({ name: 'clicked', contactId: 'c1' }, { at: '2025-03-09T08:00:00.000Z', id: 'v-1' }),
  ...burst,
  contactEvent('c1', 'ContactSubscribed', { at: '2025-03-10T11:59:59.000Z', id: 'z-1' }),
  contactEvent('c9', 'ContactSubscribed', {
    at: '2025-03-10T10:00:00.000Z',
    id: 'p2-1',
    projectId: 'p2',
  }),
];

/** Every item of p1, newest first (time, then id, descending). */
const ORDER = [
  'z-1',
  'b-09',
  'b-08',
  'b-07',
  'b-06',
  'b-05',
  'b-04',
  'b-03',
  'b-02',
  'b-01',
  'b-00',
  'v-1',
  'u-2',
  'f-2',
  'q-2',
  's-1',
  'q-1',
  'n-1',
  't-a',
];

const contact = (id: string, projectId: string, email: string): ContactViewDocument => ({
  _id: id,
  projectId,
  email,
  subscribed: true,
  data: {},
  createdAt: '2025-01-01T00:00:00.000Z',
  updatedAt: '2025-01-01T00:00:00.000Z',
});

let platform: EmbeddedPlatform;
let p1: ServedRouter;
let p2: ServedRouter;

beforeAll(async () => {
  platform = openEmbeddedPlatform({
    dataDir: ':memory:',
    logger: createLogger({ level: 'silent' }),
  });
  await createActivityIndexes(platform.views);
  for (const event of events) await projectActivity(platform.views, event);
  const contacts = platform.views.collection<ContactViewDocument & ViewDocument>(CONTACTS_VIEW);
  await contacts.insertOne(contact('c1', 'p1', 'ada@example.org'));
  await contacts.insertOne(contact('c2', 'p1', 'bob@example.org'));
  await contacts.insertOne(contact('c9', 'p2', 'cy@example.org'));
  const router = activityRouter({ views: platform.views, now: () => NOW });
  p1 = await serveRouter(router, { projectId: 'p1', keyKind: 'secret' });
  p2 = await serveRouter(router, { projectId: 'p2', keyKind: 'secret' });
});

afterAll(async () => {
  await p1.close();
  await p2.close();
  await platform.close();
});

const page = async (server: ServedRouter, query: string): Promise<Page> => {
  const response = await server.request('GET', `/activity${query}`);
  expect(response.status).toBe(200);
  return response.body as Page;
};

/** Every page of a query, following cursors; returns the ids and the totals seen. */
async function walk(query: string, limit: number): Promise<{ ids: string[]; totals: number[] }> {
  const ids: string[] = [];
  const totals: number[] = [];
  let cursor = '';
  for (;;) {
    const prefix = query === '' ? '?' : `?${query}&`;
    const next = await page(
      p1,
      `${prefix}limit=${limit}${cursor === '' ? '' : `&cursor=${cursor}`}`,
    );
    ids.push(...next.data.map((item) => item.id));
    totals.push(next.total);
    if (!next.hasMore) return { ids, totals };
    expect(next.data).toHaveLength(limit);
    cursor = next.cursor;
  }
}

describe('GET /activity', () => {
  it('answers the newest items first with total, cursor and the contact joined', async () => {
    const first = await page(p1, '?limit=5');
    expect(first.data.map((item) => item.id)).toEqual(ORDER.slice(0, 5));
    expect(first.total).toBe(ORDER.length);
    expect(first.hasMore).toBe(true);
    expect(first.cursor).toBe(`${Date.parse('2025-03-10T11:00:42.000Z')}_b-06`);
    expect(first.data[0]).toEqual({
      id: 'z-1',
      type: 'contact.subscribed',
      createdAt: '2025-03-10T11:59:59.000Z',
      contact: { id: 'c1', email: 'ada@example.org' },
      data: {},
    });
    expect((await page(p1, '')).data).toHaveLength(Math.min(20, ORDER.length));
  });

  it('pages through every item with cursors, total on the first page only', async () => {
    for (const limit of [1, 4, 7, 100]) {
      const { ids, totals } = await walk('', limit);
      expect(ids).toEqual(ORDER);
      expect(totals[0]).toBe(ORDER.length);
      expect(totals.slice(1).every((total) => total === 0)).toBe(true);
    }
  });

  it('shows email items with their email id and subject, an unknown contact as null', async () => {
    const bounced = (await page(p1, '?type=email.bounced')).data;
    expect(bounced).toEqual([
      {
        id: 'f-2',
        type: 'email.bounced',
        createdAt: '2025-03-06T00:00:00.000Z',
        contact: { id: 'c2', email: 'bob@example.org' },
        emailId: 'm2',
        data: { subject: 'Receipt', error: '550 mailbox <[address]> unknown' },
      },
    ]);
    const delivered = (await page(p1, '?type=email.delivered')).data[0];
    expect(delivered).toMatchObject({
      id: 's-1',
      emailId: 'm1',
      data: { subject: 'Welcome', templateId: 'tpl1' },
    });
    const orphan = (await page(p1, '?contactId=c3')).data;
    expect(orphan).toEqual([
      {
        id: 'n-1',
        type: 'event.triggered',
        createdAt: '2025-02-20T00:00:00.000Z',
        contact: null,
        data: { name: 'orphan', data: {} },
      },
    ]);
  });

  it('filters by type, contact and time range, with matching totals and paging', async () => {
    const sent = await page(p1, '?type=email.sent');
    expect(sent.data.map((item) => item.id)).toEqual(['q-2', 'q-1']);
    expect(sent.total).toBe(2);

    const bob = await page(p1, '?contactId=c2');
    expect(bob.data.map((item) => item.id)).toEqual(['u-2', 'f-2', 'q-2']);
    expect(bob.total).toBe(3);

    const days = await page(p1, '?from=2025-03-05&to=2025-03-06');
    expect(days.data.map((item) => item.id)).toEqual(['f-2', 'q-2']);
    expect(days.total).toBe(2);
    expect((await page(p1, '?to=2025-03-05&from=2025-03-05')).data.map((item) => item.id)).toEqual([
      'q-2',
    ]);
    const since = await page(p1, '?from=2025-03-06T00:00:00.000Z');
    expect(since.total).toBe(ORDER.indexOf('f-2') + 1);
    const until = await page(p1, '?to=2025-03-09T08:00:00%2B00:00');
    expect(until.data[0]?.id).toBe('v-1');
    expect(until.total).toBe(ORDER.length - ORDER.indexOf('v-1'));

    const clicks = await walk('type=event.triggered&contactId=c1', 5);
    expect(clicks.ids).toEqual(
      ORDER.filter((id) => id.startsWith('b-') || ['v-1', 't-a'].includes(id)),
    );
    expect(clicks.totals[0]).toBe(12);

    const ranged = await walk('type=event.triggered&from=2025-02-15&to=2025-03-10T11:00:30Z', 2);
    expect(ranged.ids).toEqual(['b-04', 'b-03', 'b-02', 'b-01', 'b-00', 'v-1', 'n-1']);
    expect(ranged.totals[0]).toBe(7);

    const none = await page(p1, '?contactId=nobody');
    expect(none).toEqual({ data: [], cursor: '', hasMore: false, total: 0 });
  });

  it('answers 422 naming the field for bad query values', async () => {
    const cases: [string, string][] = [
      ['?type=email.exploded', 'type'],
      ['?cursor=abc', 'cursor'],
      ['?cursor=123', 'cursor'],
      ['?cursor=x_y', 'cursor'],
      ['?cursor=99999999999999999_z', 'cursor'],
      ['?from=yesterday', 'from'],
      ['?to=2025-13-01', 'to'],
      ['?from=2025-03-01T10:00:00', 'from'],
      ['?from=2025-03-02&to=2025-03-01', 'from'],
      ['?limit=0', 'limit'],
      ['?limit=1.5', 'limit'],
      ['?limit=ten', 'limit'],
      ['?contactId=', 'contactId'],
      ['?type=email.sent&type=email.bounced', 'type'],
    ];
    for (const [query, field] of cases) {
      const response = await p1.request('GET', `/activity${query}`);
      expect([query, response.status]).toEqual([query, 422]);
      const body = response.body as ErrorBody;
      expect(body.error.code).toBe('VALIDATION_ERROR');
      expect(body.error.errors?.map((error) => error.field)).toContain(field);
    }
  });

  it('keeps projects apart', async () => {
    const other = await page(p2, '');
    expect(other.data.map((item) => item.id)).toEqual(['p2-1']);
    expect(other.data[0]?.contact).toEqual({ id: 'c9', email: 'cy@example.org' });
    expect((await page(p2, '?contactId=c1')).data).toEqual([]);
    const first = await page(p1, '?limit=1');
    expect((await page(p2, `?cursor=${first.cursor}`)).data.map((item) => item.id)).toEqual([
      'p2-1',
    ]);
  });
});

describe('GET /activity/stats', () => {
  it('counts per type and per day over the 30 days ending today by default', async () => {
    const response = await p1.request('GET', '/activity/stats');
    expect(response.status).toBe(200);
    const stats = response.body as {
      from: string;
      to: string;
      total: number;
      byType: Record<string, number>;
      daily: { date: string; total: number; byType: Record<string, number> }[];
    };
    expect(stats.from).toBe('2025-02-09');
    expect(stats.to).toBe('2025-03-10');
    expect(stats.total).toBe(ORDER.length - 1);
    expect(stats.byType).toMatchObject({
      'event.triggered': 12,
      'email.sent': 2,
      'email.delivered': 1,
      'email.bounced': 1,
      'contact.subscribed': 1,
      'contact.unsubscribed': 1,
      'email.opened': 0,
    });
    expect(stats.daily).toHaveLength(30);
    expect(stats.daily[0]?.date).toBe('2025-02-09');
    expect(stats.daily.at(-1)).toMatchObject({
      date: '2025-03-10',
      total: 11,
      byType: { 'event.triggered': 10, 'contact.subscribed': 1 },
    });
    expect(stats.daily.find((day) => day.date === '2025-03-02')?.total).toBe(0);
  });

  it('takes a range of whole UTC days', async () => {
    const response = await p1.request(
      'GET',
      '/activity/stats?from=2025-03-01&to=2025-03-05T08:00:00Z',
    );
    expect(response.body).toMatchObject({
      from: '2025-03-01',
      to: '2025-03-05',
      total: 3,
      byType: { 'email.sent': 2, 'email.delivered': 1 },
    });
    expect((response.body as { daily: unknown[] }).daily).toHaveLength(5);
    const other = await p2.request('GET', '/activity/stats');
    expect(other.body).toMatchObject({ total: 1, byType: { 'contact.subscribed': 1 } });
  });

  it('answers 422 for bad bounds, reversed bounds and ranges over 366 days', async () => {
    for (const [query, field] of [
      ['?from=soon', 'from'],
      ['?to=2025-02-30', 'to'],
      ['?from=2025-03-02&to=2025-03-01', 'from'],
      ['?from=2024-01-01&to=2025-03-01', 'from'],
    ] as const) {
      const response = await p1.request('GET', `/activity/stats${query}`);
      expect([query, response.status]).toEqual([query, 422]);
      expect((response.body as ErrorBody).error.errors?.map((error) => error.field)).toContain(
        field,
      );
    }
  });
});

describe('GET /activity/recent-count', () => {
  it('counts the items of the last N hours, bounds included', async () => {
    const count = async (query: string): Promise<unknown> =>
      (await p1.request('GET', `/activity/recent-count${query}`)).body;
    expect(await count('')).toEqual({
      count: 11,
      since: '2025-03-09T12:00:00.000Z',
      hours: 24,
    });
    expect(await count('?hours=1')).toMatchObject({ count: 11, since: '2025-03-10T11:00:00.000Z' });
    expect(await count('?hours=28')).toMatchObject({ count: 13 });
    expect(await count('?hours=720')).toMatchObject({ count: ORDER.length - 1 });
    expect((await p2.request('GET', '/activity/recent-count')).body).toMatchObject({ count: 1 });
  });

  it('answers 422 for hours out of 1..720', async () => {
    for (const hours of ['0', '721', 'many', '1.5']) {
      const response = await p1.request('GET', `/activity/recent-count?hours=${hours}`);
      expect([hours, response.status]).toEqual([hours, 422]);
      expect((response.body as ErrorBody).error.errors?.[0]?.field).toBe('hours');
    }
  });
});

describe('GET /activity/types', () => {
  it('lists the types present with their counts, most frequent first', async () => {
    expect((await p1.request('GET', '/activity/types')).body).toEqual({
      types: [
        { type: 'event.triggered', count: 13 },
        { type: 'email.sent', count: 2 },
        { type: 'contact.subscribed', count: 1 },
        { type: 'contact.unsubscribed', count: 1 },
        { type: 'email.bounced', count: 1 },
        { type: 'email.delivered', count: 1 },
      ],
    });
    expect((await p2.request('GET', '/activity/types')).body).toEqual({
      types: [{ type: 'contact.subscribed', count: 1 }],
    });
  });
});
