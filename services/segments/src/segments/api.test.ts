/**
 * The segment routes over a real socket, with the real contacts service on one embedded
 * platform: contacts and tracked events flow through the log into the audience view the
 * segments are evaluated on.
 */
import { serveRouter, type ServedRouter } from '@stamp/testkit/http.ts';
import { Router } from 'express';

import { type SegmentsBench, startSegmentsBench } from '../testing.ts';

interface Segment {
  id: string;
  name: string;
  type: string;
  memberCount: number;
  condition: unknown;
}
interface ContactsPage {
  data: { id: string; email: string; data: Record<string, unknown> }[];
  contacts: unknown[];
  total: number;
  page: number;
  pageSize: number;
  totalPages: number;
}

let bench: SegmentsBench;
let p1: ServedRouter;
let p2: ServedRouter;

const filterOf = (field: string, operator: string, value?: unknown) => ({
  logic: 'AND',
  groups: [{ filters: [{ field, operator, ...(value === undefined ? {} : { value }) }] }],
});

beforeAll(async () => {
  bench = await startSegmentsBench();
  const router = Router();
  router.use(...bench.routers);
  p1 = await serveRouter(router, { projectId: 'p1', keyKind: 'secret' });
  p2 = await serveRouter(router, { projectId: 'p2', keyKind: 'secret' });
  for (const [index, plan] of ['pro', 'pro', 'free', 'team', 'pro'].entries()) {
    const created = await p1.request('POST', '/contacts', {
      email: `user${index}@example.org`,
      subscribed: index !== 4,
      data: { plan, 'signup.source': index % 2 === 0 ? 'ads' : 'blog', seats: index * 10 },
    });
    expect(created.status).toBe(201);
  }
  await p2.request('POST', '/contacts', { email: 'other@example.org', data: { plan: 'pro' } });
});

afterAll(async () => {
  await p1.close();
  await p2.close();
  await bench.close();
});

describe('dynamic segments', () => {
  it('creates a segment with its members counted, lists and reads it', async () => {
    const created = await p1.request('POST', '/segments', {
      name: 'Pro customers',
      condition: filterOf('data.plan', 'equals', 'pro'),
    });
    expect(created.status).toBe(201);
    const segment = created.body as Segment;
    expect(segment).toMatchObject({ name: 'Pro customers', type: 'DYNAMIC', memberCount: 3 });

    const listed = await p1.request('GET', '/segments');
    expect((listed.body as Segment[]).map((item) => item.id)).toContain(segment.id);
    expect((await p2.request('GET', '/segments')).body).toEqual([]);
    expect((await p2.request('GET', `/segments/${segment.id}`)).status).toBe(404);

    const page = (await p1.request('GET', `/segments/${segment.id}/contacts?pageSize=2&page=2`))
      .body as ContactsPage;
    expect(page).toMatchObject({ total: 3, page: 2, pageSize: 2, totalPages: 2 });
    expect(page.data).toHaveLength(1);
    expect(page.contacts).toEqual(page.data);
    // Data keys come back as they were written, dots included.
    expect(Object.keys(page.data[0]?.data ?? {}).sort()).toEqual([
      'plan',
      'seats',
      'signup.source',
    ]);
  });

  it('is live: a new contact, a data change and a tracked event move its members', async () => {
    const created = await p1.request('POST', '/segments', {
      name: 'Ads, subscribed, upgraded',
      condition: {
        logic: 'AND',
        groups: [
          {
            filters: [
              { field: 'data.signup.source', operator: 'equals', value: 'ads' },
              { field: 'subscribed', operator: 'equals', value: true },
              { field: 'event.upgraded', operator: 'triggeredWithin', value: 30, unit: 'days' },
            ],
          },
        ],
      },
    });
    const segment = created.body as Segment;
    expect(segment.memberCount).toBe(0);
    expect(
      (await p1.request('POST', '/v1/track', { event: 'upgraded', email: 'user0@example.org' }))
        .status,
    ).toBe(200);
    // user4 is unsubscribed: the event alone does not make it a member.
    await p1.request('POST', '/v1/track', { event: 'upgraded', email: 'user4@example.org' });
    const live = (await p1.request('GET', `/segments/${segment.id}/contacts`)).body as ContactsPage;
    expect(live.data.map((contact) => contact.email)).toEqual(['user0@example.org']);
    // The cached count moves on refresh.
    const refreshed = await p1.request('POST', `/segments/${segment.id}/refresh`);
    expect(refreshed.body).toMatchObject({ memberCount: 1 });
  });

  it('counts the contacts a condition matches without saving a segment', async () => {
    const before = (await p1.request('GET', '/segments')).body as Segment[];
    const pro = await p1.request('POST', '/segments/count', {
      condition: filterOf('data.plan', 'equals', 'pro'),
    });
    expect(pro).toMatchObject({ status: 200, body: { count: 3 } });
    const subscribedPro = await p1.request('POST', '/segments/count', {
      condition: {
        logic: 'AND',
        groups: [
          {
            filters: [
              { field: 'data.plan', operator: 'equals', value: 'pro' },
              { field: 'subscribed', operator: 'equals', value: true },
            ],
          },
        ],
      },
    });
    expect(subscribedPro.body).toEqual({ count: 2 });
    // Another project's contacts are not counted; nothing was saved.
    expect(
      (
        await p2.request('POST', '/segments/count', {
          condition: filterOf('email', 'contains', 'e'),
        })
      ).body,
    ).toEqual({ count: 1 });
    expect((await p1.request('GET', '/segments')).body).toEqual(before);
    const bad = await p1.request('POST', '/segments/count', {
      condition: filterOf('data.plan', 'triggered'),
    });
    expect(bad.status).toBe(422);
    expect(JSON.stringify(bad.body)).toContain('condition.groups.0.filters.0.operator');
    expect((await p1.request('POST', '/segments/count', {})).status).toBe(422);
  });

  it('refuses bad conditions with 422 naming the path, STATIC with a condition, DYNAMIC without', async () => {
    const bad = await p1.request('POST', '/segments', {
      name: 'Bad',
      condition: filterOf('data.plan', 'triggered'),
    });
    expect(bad.status).toBe(422);
    expect(JSON.stringify(bad.body)).toContain('condition.groups.0.filters.0.operator');
    const staticWith = await p1.request('POST', '/segments', {
      name: 'Static',
      type: 'STATIC',
      condition: filterOf('data.plan', 'equals', 'pro'),
    });
    expect(staticWith.status).toBe(422);
    expect((await p1.request('POST', '/segments', { name: 'No condition' })).status).toBe(422);
    expect(
      (await p1.request('POST', '/segments', { condition: filterOf('email', 'contains', 'a') }))
        .status,
    ).toBe(422);
  });

  it('refuses a segment that reaches itself through segment references', async () => {
    const a = (
      await p1.request('POST', '/segments', {
        name: 'A',
        condition: filterOf('subscribed', 'equals', true),
      })
    ).body as Segment;
    const b = (
      await p1.request('POST', '/segments', {
        name: 'B',
        condition: filterOf(`segment.${a.id}`, 'memberOfSegment'),
      })
    ).body as Segment;
    expect(b.memberCount).toBe(4);
    const cycle = await p1.request('PATCH', `/segments/${a.id}`, {
      condition: filterOf(`segment.${b.id}`, 'memberOfSegment'),
    });
    expect(cycle.status).toBe(422);
    expect(JSON.stringify(cycle.body)).toContain('condition.groups.0.filters.0');
    const unknown = await p1.request('POST', '/segments', {
      name: 'C',
      condition: filterOf('segment.nope', 'memberOfSegment'),
    });
    expect(unknown.status).toBe(422);
  });

  it('recounts on a condition change, and is gone after DELETE', async () => {
    const segment = (
      await p1.request('POST', '/segments', {
        name: 'Seats',
        condition: filterOf('data.seats', 'greaterThanOrEqual', 20),
      })
    ).body as Segment;
    expect(segment.memberCount).toBe(3);
    const patched = await p1.request('PATCH', `/segments/${segment.id}`, {
      name: 'Many seats',
      condition: filterOf('data.seats', 'greaterThan', 30),
    });
    expect(patched.body).toMatchObject({ name: 'Many seats', memberCount: 1 });
    expect((await p1.request('DELETE', `/segments/${segment.id}`)).status).toBe(200);
    expect((await p1.request('GET', `/segments/${segment.id}`)).status).toBe(404);
    expect((await p1.request('DELETE', `/segments/${segment.id}`)).status).toBe(404);
  });
});

describe('static segments', () => {
  it('adds members by email with per-email results, creates missing ones, removes them', async () => {
    const segment = (
      await p1.request('POST', '/segments', { name: 'Beta testers', type: 'STATIC' })
    ).body as Segment;
    expect(segment).toMatchObject({ type: 'STATIC', memberCount: 0, condition: null });
    const added = await p1.request('POST', `/segments/${segment.id}/members`, {
      emails: ['User1@Example.org', 'user2@example.org', 'nobody@example.org'],
    });
    expect(added.body).toMatchObject({
      results: [
        { email: 'user1@example.org', status: 'added' },
        { email: 'user2@example.org', status: 'added' },
        { email: 'nobody@example.org', status: 'not_found' },
      ],
      added: 2,
      notFound: 1,
    });
    const again = await p1.request('POST', `/segments/${segment.id}/members`, {
      emails: ['user1@example.org', 'new@example.org'],
      createMissing: true,
    });
    expect(again.body).toMatchObject({
      results: [
        { email: 'user1@example.org', status: 'already_member' },
        { email: 'new@example.org', status: 'created' },
      ],
      added: 1,
      created: 1,
      alreadyMembers: 1,
    });
    expect((await p1.request('GET', `/segments/${segment.id}`)).body).toMatchObject({
      memberCount: 3,
    });
    const members = (await p1.request('GET', `/segments/${segment.id}/contacts`))
      .body as ContactsPage;
    expect(members.data.map((contact) => contact.email).sort()).toEqual([
      'new@example.org',
      'user1@example.org',
      'user2@example.org',
    ]);
    // A dynamic segment may test membership of a static one.
    const inBeta = (
      await p1.request('POST', '/segments', {
        name: 'Beta pros',
        condition: {
          logic: 'AND',
          groups: [
            {
              filters: [
                { field: `segment.${segment.id}`, operator: 'memberOfSegment' },
                { field: 'data.plan', operator: 'equals', value: 'pro' },
              ],
            },
          ],
        },
      })
    ).body as Segment;
    expect(inBeta.memberCount).toBe(1);

    const removed = await p1.request('DELETE', `/segments/${segment.id}/members`, {
      emails: ['user2@example.org', 'user3@example.org', 'ghost@example.org'],
    });
    expect(removed.body).toMatchObject({ removed: 1, notMembers: 1, notFound: 1 });
    expect((await p1.request('GET', `/segments/${segment.id}`)).body).toMatchObject({
      memberCount: 2,
    });
  });

  it('refuses members on a dynamic segment, bad emails and too many of them', async () => {
    const dynamic = (
      await p1.request('POST', '/segments', {
        name: 'Dyn',
        condition: filterOf('subscribed', 'equals', false),
      })
    ).body as Segment;
    expect(
      (
        await p1.request('POST', `/segments/${dynamic.id}/members`, {
          emails: ['user1@example.org'],
        })
      ).status,
    ).toBe(400);
    const fixed = (await p1.request('POST', '/segments', { name: 'Fixed', type: 'STATIC' }))
      .body as Segment;
    const invalid = await p1.request('POST', `/segments/${fixed.id}/members`, {
      emails: ['not an email'],
    });
    expect(invalid.status).toBe(422);
    expect(JSON.stringify(invalid.body)).toContain('emails.0');
    const many = Array.from({ length: 1001 }, (_, index) => `u${index}@example.org`);
    expect(
      (await p1.request('POST', `/segments/${fixed.id}/members`, { emails: many })).status,
    ).toBe(422);
    expect(
      (await p1.request('POST', '/segments/unknown/members', { emails: ['a@example.org'] })).status,
    ).toBe(404);
  });

  it('drops a deleted contact from every segment', async () => {
    const segment = (await p1.request('POST', '/segments', { name: 'Keep', type: 'STATIC' }))
      .body as Segment;
    await p1.request('POST', `/segments/${segment.id}/members`, {
      emails: ['user3@example.org'],
      createMissing: true,
    });
    const before = (await p1.request('GET', `/segments/${segment.id}/contacts`))
      .body as ContactsPage;
    expect(before.total).toBe(1);
    const id = before.data[0]?.id ?? '';
    expect((await p1.request('DELETE', `/contacts/${id}`)).status).toBe(204);
    await p1.request('GET', '/contacts?limit=1');
    const after = (await p1.request('POST', `/segments/${segment.id}/refresh`)).body as Segment;
    expect(after.memberCount).toBe(0);
  });
});
