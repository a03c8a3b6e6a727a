/**
 * Tracked membership over real sockets, with the real contacts and activity services on one
 * embedded platform: entries and exits follow contact changes and tracked events, appear in
 * GET /events and the activity feed, happen once however often the log is replayed, follow the
 * clock through durable timers, and `compute` repairs what is missing.
 */
import { createActivityService } from '@stamp/activity';
import { createLogger, type EmbeddedPlatform, TimerScheduler } from '@stamp/platform';
import { eventually } from '@stamp/testkit/eventually.ts';
import { serveRouter, type ServedRouter } from '@stamp/testkit/http.ts';
import { Router } from 'express';

import { AUDIENCE_VIEW_GROUP } from '../audience/projection.ts';
import { type SegmentsBench, startSegmentsBench } from '../testing.ts';
import { SEGMENT_TIMERS, type SegmentTimer } from './views.ts';

interface EventItem {
  id: string;
  name: string;
  contactId: string;
  data: Record<string, unknown>;
}
interface Computed {
  id: string;
  memberCount: number;
  entered: number;
  exited: number;
}

let bench: SegmentsBench;
let platform: EmbeddedPlatform;
let segments: SegmentsBench['segments'];
let api: ServedRouter;
/** Offset of the segments service's clock from the system clock, ms. */
let clockOffset = 0;

const filterOf = (field: string, operator: string, value?: unknown, unit?: string) => ({
  logic: 'AND',
  groups: [
    {
      filters: [
        {
          field,
          operator,
          ...(value === undefined ? {} : { value }),
          ...(unit === undefined ? {} : { unit }),
        },
      ],
    },
  ],
});

/** The project's events of `name` (newest first). */
async function eventsNamed(name: string): Promise<EventItem[]> {
  const response = await api.request('GET', `/events?name=${encodeURIComponent(name)}&limit=100`);
  expect(response.status).toBe(200);
  return (response.body as { data: EventItem[] }).data;
}

/** Waits until `name` has `count` events, and returns them. */
const eventsReach = (name: string, count: number): Promise<EventItem[]> =>
  eventually(`${count} × ${name}`, async () => {
    const found = await eventsNamed(name);
    return found.length >= count ? found : undefined;
  });

async function createContact(email: string, data: Record<string, unknown>): Promise<string> {
  const created = await api.request('POST', '/contacts', { email, data });
  expect(created.status).toBe(201);
  return (created.body as { id: string }).id;
}

async function createSegment(name: string, condition: unknown): Promise<string> {
  const created = await api.request('POST', '/segments', {
    name,
    condition,
    trackMembership: true,
  });
  expect(created.status).toBe(201);
  return (created.body as { id: string }).id;
}

/** Restarts the segments service with its audience projection replaying the whole log. */
async function replayAudience(): Promise<void> {
  await segments.stop();
  await platform.checkpoints.reset(AUDIENCE_VIEW_GROUP);
  await segments.start();
  const head = await platform.store.headPosition();
  for (const consumer of segments.projections?.() ?? []) {
    expect(await consumer.waitFor(head, 20_000)).toBe(true);
  }
}

beforeAll(async () => {
  bench = await startSegmentsBench(
    // The test fires the timers itself, at instants of its choosing.
    { timers: { enabled: false }, now: () => new Date(Date.now() + clockOffset) },
    (deps) => [createActivityService({ ...deps, allowPrivateTargets: false })],
  );
  platform = bench.platform;
  segments = bench.segments;
  const router = Router();
  router.use(...bench.routers);
  api = await serveRouter(router, { projectId: 'p1', keyKind: 'secret' });
});

afterAll(async () => {
  await api.close();
  await bench.close();
});

describe('tracked membership', () => {
  it('enters and exits a contact as it changes, in GET /events and the activity feed', async () => {
    const segmentId = await createSegment('VIP Customers!', filterOf('data.plan', 'equals', 'vip'));
    const contactId = await createContact('ada@example.org', { plan: 'vip' });

    const [entry] = await eventsReach('segment.vip-customers.entry', 1);
    expect(entry).toMatchObject({
      contactId,
      data: { segmentId, segmentName: 'VIP Customers!' },
    });
    const feed = await eventually('the entry in the activity feed', async () => {
      const items = (await api.request('GET', `/activity?contactId=${contactId}`)).body as {
        data: { type: string; data: { name?: string } }[];
      };
      return items.data.find((item) => item.data.name === 'segment.vip-customers.entry');
    });
    expect(feed.type).toBe('event.triggered');

    const patched = await api.request('PATCH', `/contacts/${contactId}`, {
      data: { plan: 'free' },
    });
    expect(patched.status).toBe(200);
    const [exit] = await eventsReach('segment.vip-customers.exit', 1);
    expect(exit).toMatchObject({ contactId, data: { segmentId } });

    // Back in: a second entry, after the exit.
    await api.request('PATCH', `/contacts/${contactId}`, { data: { plan: 'vip' } });
    await eventsReach('segment.vip-customers.entry', 2);
    const computed = (await api.request('POST', `/segments/${segmentId}/compute`)).body as Computed;
    expect(computed).toMatchObject({ id: segmentId, memberCount: 1, entered: 0, exited: 0 });
  });

  it('never enters or exits twice when the log is replayed', async () => {
    await createSegment('Replayed', filterOf('data.team', 'equals', 'red'));
    const contactId = await createContact('bo@example.org', { team: 'red' });
    await eventsReach('segment.replayed.entry', 1);
    await api.request('PATCH', `/contacts/${contactId}`, { data: { team: 'blue' } });
    await eventsReach('segment.replayed.exit', 1);

    await replayAudience();
    await replayAudience();

    expect(await eventsNamed('segment.replayed.entry')).toHaveLength(1);
    expect(await eventsNamed('segment.replayed.exit')).toHaveLength(1);
    expect(await eventsNamed('segment.vip-customers.entry')).toHaveLength(2);
    expect(await eventsNamed('segment.vip-customers.exit')).toHaveLength(1);
  });

  it('enters the contacts that already match when tracking starts', async () => {
    const first = await createContact('cy@example.org', { tier: 'gold' });
    const second = await createContact('di@example.org', { tier: 'gold' });
    await createContact('ed@example.org', { tier: 'silver' });
    const segmentId = await createSegment('Gold', filterOf('data.tier', 'equals', 'gold'));

    const entries = await eventsReach('segment.gold.entry', 2);
    expect(entries.map((event) => event.contactId).sort()).toEqual([first, second].sort());
    const computed = (await api.request('POST', `/segments/${segmentId}/compute`)).body as Computed;
    expect(computed).toMatchObject({ memberCount: 2, entered: 0, exited: 0 });
    expect(await eventsNamed('segment.gold.entry')).toHaveLength(2);
  });

  it('moves with the clock: a relative-time condition exits on its durable timer', async () => {
    await createSegment('Active', filterOf('event.login', 'triggeredWithin', 1, 'minutes'));
    const tracked = await api.request('POST', '/v1/track', {
      event: 'login',
      email: 'fay@example.org',
    });
    expect(tracked.status).toBe(200);
    const contactId = (tracked.body as { data: { contact: string } }).data.contact;
    await eventsReach('segment.active.entry', 1);

    const timers = platform.views.collection<SegmentTimer>(SEGMENT_TIMERS);
    const timer = await eventually(
      'the timer of the boundary',
      async () => (await timers.findOne({ contactId })) ?? undefined,
    );
    expect(timer.dueAt).toBeGreaterThan(Date.now() + 50_000);
    expect(timer.dueAt).toBeLessThan(Date.now() + 61_000);

    const scheduler = new TimerScheduler({
      store: platform.store,
      views: platform.views,
      leases: platform.leases,
      logger: createLogger({ level: 'silent' }),
      collection: SEGMENT_TIMERS,
    });
    expect(await scheduler.tick(Date.now())).toBe(0);
    clockOffset = 61_000;
    try {
      expect(await scheduler.tick(Date.now() + clockOffset)).toBe(1);
      const [exit] = await eventsReach('segment.active.exit', 1);
      expect(exit?.contactId).toBe(contactId);
      // A second firing of the same instant changes nothing.
      expect(await scheduler.tick(Date.now() + clockOffset)).toBe(0);
    } finally {
      clockOffset = 0;
      await scheduler.stop();
    }
  });

  it('sets the timers of the contacts that already match when tracking starts', async () => {
    const tracked = await api.request('POST', '/v1/track', {
      event: 'pay',
      email: 'gus@example.org',
    });
    const contactId = (tracked.body as { data: { contact: string } }).data.contact;
    await createSegment('Payers', filterOf('event.pay', 'triggeredWithin', 1, 'minutes'));
    const [entry] = await eventsReach('segment.payers.entry', 1);
    expect(entry?.contactId).toBe(contactId);
    const timers = platform.views.collection<SegmentTimer>(SEGMENT_TIMERS);
    const timer = await eventually(
      'the timer set by the first pass',
      async () => (await timers.findOne({ contactId })) ?? undefined,
    );
    expect(timer.dueAt).toBeGreaterThan(Date.now() + 50_000);
  });

  it('compute repairs missing entries and exits; other segments report none', async () => {
    const segmentId = await createSegment('Blue team', filterOf('data.team', 'equals', 'blue'));
    // bo@ (team blue since the replay test) entered when tracking started.
    await eventsReach('segment.blue-team.entry', 1);

    const untracked = await api.request('POST', '/segments', {
      name: 'Untracked',
      condition: filterOf('data.team', 'equals', 'blue'),
    });
    const untrackedId = (untracked.body as { id: string }).id;
    const computed = (await api.request('POST', `/segments/${untrackedId}/compute`))
      .body as Computed;
    expect(computed).toMatchObject({ memberCount: 1, entered: 0, exited: 0 });
    expect((await api.request('POST', '/segments/unknown/compute')).status).toBe(404);

    const again = (await api.request('POST', `/segments/${segmentId}/compute`)).body as Computed;
    expect(again).toMatchObject({ entered: 0, exited: 0, memberCount: 1 });
  });

  it('refuses to delete system events', async () => {
    const response = await api.request('DELETE', '/events/segment.gold.entry');
    expect(response.status).toBe(422);
    expect(await eventsNamed('segment.gold.entry')).toHaveLength(2);
  });
});
