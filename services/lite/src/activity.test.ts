/** The activity feed on the whole embedded platform, over HTTP (spec part 4, GET /activity…). */
import type { Stamp } from './app.ts';
import { call, startTestStamp, TEST_KEYS } from './testing.ts';

interface Item {
  id: string;
  type: string;
  createdAt: string;
  contact: { id: string; email: string } | null;
  emailId?: string;
  data: Record<string, unknown>;
}

interface Page {
  data: Item[];
  cursor: string;
  hasMore: boolean;
  total: number;
}

describe('activity feed end to end', () => {
  let stamp: Stamp;
  const sk = TEST_KEYS.secretKey;
  const pk = TEST_KEYS.publicKey;

  beforeAll(async () => {
    stamp = await startTestStamp();
  });

  afterAll(async () => {
    await stamp.close();
  });

  const get = async (path: string): Promise<{ status: number; body: unknown }> =>
    call(stamp.url, sk, 'GET', path);

  const feed = async (query = ''): Promise<Page> => {
    const response = await get(`/activity${query}`);
    expect(response.status).toBe(200);
    return response.body as Page;
  };

  /** Sends one email from the sandbox sender (delivered to the local outbox). */
  async function send(
    to: string,
    subject: string,
  ): Promise<{ emailId: string; contactId: string }> {
    const sent = await call(stamp.url, sk, 'POST', '/v1/send', {
      to,
      subject,
      body: '<p>Hello there</p>',
      from: 'hello@sandbox.stamp.localhost',
    });
    expect(sent.status).toBe(200);
    const email = (sent.body as { data: { emails: { contact: { id: string }; email: string }[] } })
      .data.emails[0]!;
    return { emailId: email.email, contactId: email.contact.id };
  }

  /** Waits until the delivery of `emailId` is in the feed (delivery runs in the background). */
  async function delivered(emailId: string): Promise<Item> {
    for (let attempt = 0; attempt < 200; attempt++) {
      const found = (await feed('?type=email.delivered&limit=100')).data.find(
        (item) => item.emailId === emailId,
      );
      if (found !== undefined) return found;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new Error(`email ${emailId} was never delivered`);
  }

  it('refuses requests without the secret key', async () => {
    for (const path of ['/activity', '/activity/stats', '/activity/upcoming']) {
      expect((await call(stamp.url, undefined, 'GET', path)).status).toBe(401);
      const withPublic = await call(stamp.url, pk, 'GET', path);
      expect(withPublic.status).toBe(401);
      expect(withPublic.body).toMatchObject({ error: { code: 'INVALID_API_KEY' } });
    }
  });

  it('reports sends, deliveries, tracked events and subscription flips, newest first', async () => {
    const ada = await send('ada@example.org', 'Hello Ada');
    const adaDelivery = await delivered(ada.emailId);
    expect(adaDelivery).toMatchObject({
      type: 'email.delivered',
      contact: { id: ada.contactId, email: 'ada@example.org' },
      data: { subject: 'Hello Ada' },
    });

    const tracked = await call(stamp.url, pk, 'POST', '/v1/track', {
      event: 'signed-up',
      email: 'ada@example.org',
      data: { plan: 'pro' },
    });
    expect(tracked.status).toBe(200);
    const eventId = (tracked.body as { data: { event: string } }).data.event;

    // A contact created by a send is unsubscribed: subscribe, then unsubscribe again.
    const patch = (subscribed: boolean) =>
      call(stamp.url, sk, 'PATCH', `/contacts/${ada.contactId}`, { subscribed });
    expect((await patch(true)).status).toBe(200);
    expect((await patch(false)).status).toBe(200);
    expect((await patch(false)).status).toBe(200); // no flip, no activity

    const page = await feed();
    expect(page.total).toBe(5);
    expect(page.hasMore).toBe(false);
    // Newest first: by time, then by id (items of one millisecond), both descending.
    const keys = page.data.map((item) => `${item.createdAt} ${item.id}`);
    expect(keys).toEqual([...keys].sort().reverse());
    const byType = new Map(page.data.map((item) => [item.type, item]));
    expect([...byType.keys()].sort()).toEqual([
      'contact.subscribed',
      'contact.unsubscribed',
      'email.delivered',
      'email.sent',
      'event.triggered',
    ]);
    const at = (type: string): string => byType.get(type)?.createdAt ?? '';
    expect(at('contact.unsubscribed') >= at('contact.subscribed')).toBe(true);
    expect(at('contact.subscribed') >= at('event.triggered')).toBe(true);
    expect(at('event.triggered') >= at('email.delivered')).toBe(true);
    expect(at('email.delivered') >= at('email.sent')).toBe(true);
    for (const item of page.data) {
      expect(item.contact).toEqual({ id: ada.contactId, email: 'ada@example.org' });
    }
    expect(byType.get('event.triggered')).toMatchObject({
      id: eventId,
      data: { name: 'signed-up', data: { plan: 'pro' } },
    });
    expect(byType.get('email.sent')).toMatchObject({
      emailId: ada.emailId,
      data: { subject: 'Hello Ada' },
    });
    expect(JSON.stringify(page)).not.toContain('Hello there');
  });

  it('filters, pages with cursors and counts', async () => {
    const bob = await send('bob@example.org', 'Hello Bob');
    await delivered(bob.emailId);
    const all = await feed('?limit=100');
    expect(all.total).toBe(7);

    const pages: string[] = [];
    let cursor = '';
    for (let guard = 0; guard < 10; guard++) {
      const next = await feed(`?limit=2${cursor === '' ? '' : `&cursor=${cursor}`}`);
      pages.push(...next.data.map((item) => item.id));
      expect(next.total).toBe(cursor === '' ? 7 : 0);
      if (!next.hasMore) break;
      cursor = next.cursor;
      expect(cursor).toMatch(/^\d+_.+$/);
    }
    expect(pages).toEqual(all.data.map((item) => item.id));

    const bobs = await feed(`?contactId=${bob.contactId}`);
    expect(bobs.data.map((item) => item.type).sort()).toEqual(['email.delivered', 'email.sent']);
    expect((await feed('?type=email.sent')).total).toBe(2);
    expect((await feed('?type=event.triggered')).data).toHaveLength(1);
    expect((await feed('?from=2999-01-01')).total).toBe(0);
    expect((await feed(`?to=${encodeURIComponent(all.data[6]!.createdAt)}`)).total).toBeGreaterThan(
      0,
    );

    const stats = (await get('/activity/stats')).body as {
      total: number;
      byType: Record<string, number>;
      daily: { total: number }[];
    };
    expect(stats.total).toBe(7);
    expect(stats.byType).toMatchObject({
      'email.sent': 2,
      'email.delivered': 2,
      'event.triggered': 1,
      'contact.subscribed': 1,
      'contact.unsubscribed': 1,
    });
    expect(stats.daily).toHaveLength(30);
    expect(stats.daily.reduce((sum, day) => sum + day.total, 0)).toBe(7);

    expect((await get('/activity/recent-count')).body).toMatchObject({ count: 7, hours: 24 });
    expect((await get('/activity/recent-count?hours=1')).body).toMatchObject({ count: 7 });
    expect((await get('/activity/types')).body).toEqual({
      types: [
        { type: 'email.delivered', count: 2 },
        { type: 'email.sent', count: 2 },
        { type: 'contact.subscribed', count: 1 },
        { type: 'contact.unsubscribed', count: 1 },
        { type: 'event.triggered', count: 1 },
      ],
    });
    expect((await get('/activity/upcoming')).body).toEqual({ campaigns: [], executions: [] });
  });

  it('answers 422 VALIDATION_ERROR for bad query values', async () => {
    for (const path of [
      '/activity?type=email.lost',
      '/activity?cursor=not-a-cursor',
      '/activity?from=last-week',
      '/activity?from=2025-02-01&to=2025-01-01',
      '/activity?limit=0',
      '/activity/stats?from=2020-01-01&to=2025-01-01',
      '/activity/stats?to=2025-02-30',
      '/activity/recent-count?hours=0',
      '/activity/recent-count?hours=721',
      '/activity/upcoming?limit=0',
    ]) {
      const response = await get(path);
      expect([path, response.status]).toEqual([path, 422]);
      expect(response.body).toMatchObject({
        success: false,
        error: { code: 'VALIDATION_ERROR', statusCode: 422 },
      });
    }
  });

  it('drops a deleted contact’s activity from the feed and the counts', async () => {
    const before = await feed('?limit=100');
    const ada = before.data.find((item) => item.contact?.email === 'ada@example.org')!.contact!;
    const deleted = await call(stamp.url, sk, 'DELETE', `/contacts/${ada.id}`);
    expect(deleted.status).toBe(204);
    const after = await feed('?limit=100');
    expect(after.total).toBe(2);
    expect(after.data.every((item) => item.contact?.email === 'bob@example.org')).toBe(true);
    expect((await get('/activity/types')).body).toEqual({
      types: [
        { type: 'email.delivered', count: 1 },
        { type: 'email.sent', count: 1 },
      ],
    });
    expect((await get('/activity/stats')).body).toMatchObject({ total: 2 });
  });
});
