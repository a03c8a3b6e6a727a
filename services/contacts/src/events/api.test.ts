import { CAMPAIGNS_VIEW, SEGMENTS_VIEW, WORKFLOWS_VIEW } from '@stamp/contracts';
import type { ServedRouter } from '@stamp/testkit/http.ts';

import { type ContactsHarness, startContacts } from '../testing.ts';

interface Item {
  id: string;
  name: string;
  contactId: string;
  contact: { id: string; email: string } | null;
  data: Record<string, unknown>;
  createdAt: string;
}
interface Page {
  data: Item[];
  cursor: string;
  hasMore: boolean;
  total: number;
}
interface Stats {
  total: number;
  names: { name: string; count: number }[];
  daily: { date: string; count: number; byName: Record<string, number> }[];
}
interface ErrorBody {
  success: boolean;
  error: { code: string; statusCode: number; errors?: { field: string; code: string }[] };
}
interface Tracked {
  data: { contact: string; event: string };
}

const today = (): string => new Date().toISOString().slice(0, 10);

describe('tracked events API', () => {
  let harness: ContactsHarness;
  let api: ServedRouter;
  let other: ServedRouter;
  /** Event ids in tracking order, and contact ids by email. */
  const tracked: { id: string; name: string; email: string }[] = [];
  const contacts = new Map<string, string>();

  async function track(
    on: ServedRouter,
    event: string,
    email: string,
    data?: Record<string, string | number | boolean>,
  ): Promise<string> {
    const response = await on.request('POST', '/v1/track', { event, email, data });
    expect(response.status).toBe(200);
    const body = response.body as Tracked;
    contacts.set(email, body.data.contact);
    return body.data.event;
  }

  async function get<T>(on: ServedRouter, path: string, status = 200): Promise<T> {
    const response = await on.request('GET', path);
    expect(response.status).toBe(status);
    return response.body as T;
  }

  async function expectError(
    on: ServedRouter,
    method: string,
    path: string,
    status: number,
    code: string,
  ): Promise<ErrorBody> {
    const response = await on.request(method, path);
    expect(response.status).toBe(status);
    const body = response.body as ErrorBody;
    expect(body.success).toBe(false);
    expect(body.error).toMatchObject({ code, statusCode: status });
    return body;
  }

  beforeAll(async () => {
    harness = await startContacts();
    api = await harness.as('project-a');
    other = await harness.as('project-b');
    const plan: [string, string][] = [
      ['signup', 'ann@example.com'],
      ['signup', 'bob@example.com'],
      ['purchase', 'ann@example.com'],
      ['page view', 'ann@example.com'],
      ['signup', 'cid@example.com'],
      ['purchase', 'bob@example.com'],
      ['a/b', 'bob@example.com'],
    ];
    for (const [name, email] of plan) {
      tracked.push({ id: await track(api, name, email, { step: tracked.length }), name, email });
    }
    await track(other, 'signup', 'zed@example.com');
  });
  afterAll(async () => {
    await harness.close();
  });

  describe('GET /events', () => {
    it('lists the project’s events newest first with the contact’s email', async () => {
      const page = await get<Page>(api, '/events');
      expect(page.total).toBe(tracked.length);
      expect(page.hasMore).toBe(false);
      expect(page.data.map(({ id }) => id)).toEqual(tracked.map(({ id }) => id).reverse());
      const [newest] = page.data;
      expect(newest).toEqual({
        id: tracked[tracked.length - 1]!.id,
        name: 'a/b',
        contactId: contacts.get('bob@example.com'),
        contact: { id: contacts.get('bob@example.com'), email: 'bob@example.com' },
        data: { step: tracked.length - 1 },
        createdAt: expect.any(String) as string,
      });
      expect(Date.parse(newest!.createdAt)).not.toBeNaN();
    });

    it('pages with the cursor; total on the first page only', async () => {
      const seen: string[] = [];
      let page = await get<Page>(api, '/events?limit=3');
      expect(page).toMatchObject({ hasMore: true, total: tracked.length });
      seen.push(...page.data.map(({ id }) => id));
      while (page.hasMore) {
        page = await get<Page>(api, `/events?limit=3&cursor=${page.cursor}`);
        expect(page.total).toBe(0);
        seen.push(...page.data.map(({ id }) => id));
      }
      expect(seen).toEqual(tracked.map(({ id }) => id).reverse());
      const past = await get<Page>(api, `/events?cursor=${page.cursor}`);
      expect(past).toEqual({ data: [], cursor: '', hasMore: false, total: 0 });
    });

    it('filters by name (or eventName)', async () => {
      const signups = tracked.filter(({ name }) => name === 'signup').map(({ id }) => id);
      const page = await get<Page>(api, '/events?name=signup&limit=2');
      expect(page).toMatchObject({ total: 3, hasMore: true });
      const next = await get<Page>(api, `/events?name=signup&limit=2&cursor=${page.cursor}`);
      expect([...page.data, ...next.data].map(({ id }) => id)).toEqual(signups.reverse());
      expect((await get<Page>(api, '/events?eventName=page%20view')).total).toBe(1);
      expect(await get<Page>(api, '/events?name=never')).toEqual({
        data: [],
        cursor: '',
        hasMore: false,
        total: 0,
      });
    });

    it('shows only the caller’s project', async () => {
      const page = await get<Page>(other, '/events');
      expect(page.total).toBe(1);
      expect(page.data[0]).toMatchObject({
        name: 'signup',
        contact: { email: 'zed@example.com' },
      });
    });

    it.each([
      ['limit=0', 'limit=0', 'limit'],
      ['limit=1.5', 'limit=1.5', 'limit'],
      ['limit=ten', 'limit=ten', 'limit'],
      ['cursor=abc', 'cursor=abc', 'cursor'],
      ['cursor=-5', 'cursor=-5', 'cursor'],
      ['cursor=0', 'cursor=0', 'cursor'],
      ['a repeated cursor', 'cursor=1&cursor=2', 'cursor'],
      ['a name of 256 characters', `name=${'x'.repeat(256)}`, 'name'],
    ])('refuses %s with 422 on that field', async (_title, query, field) => {
      const body = await expectError(api, 'GET', `/events?${query}`, 422, 'VALIDATION_ERROR');
      expect(body.error.errors?.map((error) => error.field)).toEqual([field]);
    });
  });

  describe('GET /events/contact/:contactId', () => {
    it('lists one contact’s events newest first, with paging', async () => {
      const ann = contacts.get('ann@example.com')!;
      const mine = tracked.filter(({ email }) => email === 'ann@example.com').map(({ id }) => id);
      const page = await get<Page>(api, `/events/contact/${ann}?limit=2`);
      expect(page).toMatchObject({ total: 3, hasMore: true });
      expect(page.data.every((item) => item.contact?.email === 'ann@example.com')).toBe(true);
      const next = await get<Page>(api, `/events/contact/${ann}?limit=2&cursor=${page.cursor}`);
      expect(next).toMatchObject({ total: 0, hasMore: false });
      expect([...page.data, ...next.data].map(({ id }) => id)).toEqual(mine.reverse());
    });

    it('answers 404 CONTACT_NOT_FOUND for an unknown contact or one of another project', async () => {
      await expectError(api, 'GET', '/events/contact/nobody', 404, 'CONTACT_NOT_FOUND');
      const zed = contacts.get('zed@example.com')!;
      await expectError(api, 'GET', `/events/contact/${zed}`, 404, 'CONTACT_NOT_FOUND');
      expect((await get<Page>(other, `/events/contact/${zed}`)).total).toBe(1);
    });

    it('refuses a bad limit or cursor with 422', async () => {
      const ann = contacts.get('ann@example.com')!;
      await expectError(api, 'GET', `/events/contact/${ann}?limit=0`, 422, 'VALIDATION_ERROR');
      await expectError(api, 'GET', `/events/contact/${ann}?cursor=x`, 422, 'VALIDATION_ERROR');
    });
  });

  describe('GET /events/names and /events/stats', () => {
    it('lists distinct names sorted by name with counts and last-seen times', async () => {
      const { names } = await get<{ names: { name: string; count: number }[] }>(
        api,
        '/events/names',
      );
      expect(names).toEqual([
        { name: 'a/b', count: 1, lastSeenAt: expect.any(String) as string },
        { name: 'page view', count: 1, lastSeenAt: expect.any(String) as string },
        { name: 'purchase', count: 2, lastSeenAt: expect.any(String) as string },
        { name: 'signup', count: 3, lastSeenAt: expect.any(String) as string },
      ]);
      expect(await get(other, '/events/names')).toEqual({
        names: [{ name: 'signup', count: 1, lastSeenAt: expect.any(String) as string }],
      });
    });

    it('counts per name and per UTC day for 30 days, zero-filled', async () => {
      const before = today();
      const stats = await get<Stats>(api, '/events/stats');
      expect([before, today()]).toContain(stats.daily[29]!.date);
      expect(stats.total).toBe(tracked.length);
      expect(stats.names).toEqual([
        { name: 'signup', count: 3 },
        { name: 'purchase', count: 2 },
        { name: 'a/b', count: 1 },
        { name: 'page view', count: 1 },
      ]);
      expect(stats.daily).toHaveLength(30);
      // Expected counts by the UTC day each event was recorded on (all today, unless the run
      // straddles midnight).
      const expected = new Map<string, { count: number; byName: Record<string, number> }>();
      for (const item of (await get<Page>(api, '/events?limit=100')).data) {
        const date = item.createdAt.slice(0, 10);
        const day = expected.get(date) ?? { count: 0, byName: {} };
        day.count += 1;
        day.byName[item.name] = (day.byName[item.name] ?? 0) + 1;
        expected.set(date, day);
      }
      for (const day of stats.daily) {
        expect(day).toEqual({
          date: day.date,
          ...(expected.get(day.date) ?? { count: 0, byName: {} }),
        });
      }
      expect(stats.daily.filter((day) => day.count > 0).length).toBe(expected.size);
      const dates = stats.daily.map(({ date }) => Date.parse(`${date}T00:00:00Z`));
      for (let index = 1; index < dates.length; index++) {
        expect(dates[index]! - dates[index - 1]!).toBe(86_400_000);
      }
      expect((await get<Stats>(other, '/events/stats')).total).toBe(1);
    });
  });

  describe('GET /events/:eventName/usage', () => {
    it('is empty when nothing references the name', async () => {
      expect(await get(api, '/events/signup/usage')).toEqual({
        workflows: [],
        segments: [],
        campaigns: [],
      });
    });

    it('finds the workflows, segments and campaigns of the project that reference it', async () => {
      const views = harness.platform.views;
      const workflows = views.collection(WORKFLOWS_VIEW);
      await workflows.insertOne({
        _id: 'w1',
        projectId: 'project-a',
        name: 'Onboarding',
        eventName: 'signup',
        steps: [],
      });
      await workflows.insertOne({
        _id: 'w2',
        projectId: 'project-a',
        name: 'Upsell',
        eventName: 'purchase',
        steps: [{ id: 's1', type: 'WAIT_FOR_EVENT', config: { eventName: 'signup', timeout: 60 } }],
      });
      await workflows.insertOne({
        _id: 'w3',
        projectId: 'project-a',
        name: 'Other',
        eventName: 'purchase',
        steps: [{ id: 's1', type: 'CONDITION', config: { field: 'event.signup' } }],
      });
      await workflows.insertOne({
        _id: 'w4',
        projectId: 'project-b',
        name: 'Foreign',
        eventName: 'signup',
        steps: [],
      });
      const filter = (field: string): unknown => ({
        logic: 'AND',
        groups: [
          {
            filters: [{ field: 'subscribed', operator: 'equals', value: true }],
            conditions: { logic: 'OR', groups: [{ filters: [{ field, operator: 'triggered' }] }] },
          },
        ],
      });
      const segments = views.collection(SEGMENTS_VIEW);
      await segments.insertOne({
        _id: 's1',
        projectId: 'project-a',
        name: 'Signed up',
        condition: filter('event.signup'),
      });
      await segments.insertOne({
        _id: 's2',
        projectId: 'project-a',
        name: 'Buyers',
        condition: filter('event.purchase'),
      });
      await segments.insertOne({
        _id: 's3',
        projectId: 'project-b',
        name: 'Foreign',
        condition: filter('event.signup'),
      });
      const campaigns = views.collection(CAMPAIGNS_VIEW);
      await campaigns.insertOne({
        _id: 'c1',
        projectId: 'project-a',
        name: 'Welcome',
        status: 'DRAFT',
        audienceFilter: filter('event.signup'),
      });
      await campaigns.insertOne({
        _id: 'c2',
        projectId: 'project-a',
        name: 'Everyone',
        status: 'DRAFT',
      });
      await campaigns.insertOne({
        _id: 'c3',
        projectId: 'project-b',
        name: 'Foreign',
        status: 'DRAFT',
        audienceFilter: filter('event.signup'),
      });

      expect(await get(api, '/events/signup/usage')).toEqual({
        workflows: [
          { id: 'w1', name: 'Onboarding' },
          { id: 'w2', name: 'Upsell' },
        ],
        segments: [{ id: 's1', name: 'Signed up' }],
        campaigns: [{ id: 'c1', name: 'Welcome' }],
      });
      expect(await get(api, '/events/purchase/usage')).toEqual({
        workflows: [
          { id: 'w3', name: 'Other' },
          { id: 'w2', name: 'Upsell' },
        ],
        segments: [{ id: 's2', name: 'Buyers' }],
        campaigns: [],
      });
      expect(await get(other, '/events/signup/usage')).toEqual({
        workflows: [{ id: 'w4', name: 'Foreign' }],
        segments: [{ id: 's3', name: 'Foreign' }],
        campaigns: [{ id: 'c3', name: 'Foreign' }],
      });
    });
  });

  describe('DELETE /events/:eventName', () => {
    it('answers 404 RESOURCE_NOT_FOUND for a name without events', async () => {
      await expectError(api, 'DELETE', '/events/never', 404, 'RESOURCE_NOT_FOUND');
      // Another project's events are not the caller's.
      await expectError(other, 'DELETE', '/events/purchase', 404, 'RESOURCE_NOT_FOUND');
    });

    it('deletes the name’s events from the views and the event log, as events', async () => {
      const response = await api.request('DELETE', '/events/signup');
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ success: true, deleted: 3 });

      const page = await get<Page>(api, '/events');
      expect(page.total).toBe(tracked.length - 3);
      expect(page.data.some(({ name }) => name === 'signup')).toBe(false);
      expect((await get<Page>(api, '/events?name=signup')).total).toBe(0);
      const stats = await get<Stats>(api, '/events/stats');
      expect(stats.total).toBe(tracked.length - 3);
      expect(stats.names.map(({ name }) => name)).not.toContain('signup');
      expect(stats.daily.some((day) => 'signup' in day.byName)).toBe(false);
      const { names } = await get<{ names: { name: string }[] }>(api, '/events/names');
      expect(names.map(({ name }) => name)).toEqual(['a/b', 'page view', 'purchase']);

      // The log keeps no tracked event of that name for the project; the other project's stays.
      const log = await harness.platform.store.readAll({ after: 0, limit: 10_000 });
      const signups = log.filter(
        (event) =>
          event.type === 'EventTracked' && (event.data as { name?: string }).name === 'signup',
      );
      expect(signups.map((event) => event.metadata.projectId)).toEqual(['project-b']);
      expect(log).toContainEqual(
        expect.objectContaining({
          type: 'TrackedEventsDeleted',
          data: { name: 'signup', upToPosition: expect.any(Number) as number },
          metadata: expect.objectContaining({ projectId: 'project-a' }) as unknown,
        }),
      );
      expect((await get<Page>(other, '/events?name=signup')).total).toBe(1);

      await expectError(api, 'DELETE', '/events/signup', 404, 'RESOURCE_NOT_FOUND');
    });

    it('keeps events of the name tracked after the deletion', async () => {
      const id = await track(api, 'signup', 'new@example.com');
      const page = await get<Page>(api, '/events?name=signup');
      expect(page.data.map((item) => item.id)).toEqual([id]);
      expect(page.total).toBe(1);
    });

    it('deletes a name holding a slash or a space (URL-encoded)', async () => {
      const response = await api.request('DELETE', `/events/${encodeURIComponent('a/b')}`);
      expect(response.body).toEqual({ success: true, deleted: 1 });
      const spaced = await api.request('DELETE', '/events/page%20view');
      expect(spaced.body).toEqual({ success: true, deleted: 1 });
      const { names } = await get<{ names: { name: string }[] }>(api, '/events/names');
      expect(names.map(({ name }) => name)).toEqual(['purchase', 'signup']);
    });
  });

  describe('contact deletion', () => {
    it('removes the contact’s events from every list and count', async () => {
      const bob = contacts.get('bob@example.com')!;
      expect((await get<Page>(api, `/events/contact/${bob}`)).total).toBe(1);
      const before = await get<Stats>(api, '/events/stats');
      expect((await api.request('DELETE', `/contacts/${bob}`)).status).toBe(204);

      await expectError(api, 'GET', `/events/contact/${bob}`, 404, 'CONTACT_NOT_FOUND');
      const page = await get<Page>(api, '/events');
      expect(page.data.some(({ contactId }) => contactId === bob)).toBe(false);
      const after = await get<Stats>(api, '/events/stats');
      expect(after.total).toBe(before.total - 1);
      expect(after.names).toContainEqual({ name: 'purchase', count: 1 });
    });
  });
});
