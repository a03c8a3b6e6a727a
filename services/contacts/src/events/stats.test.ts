import { awaitViewsOf, type ServiceModule } from '@stamp/http-kit';
import { createLogger, type EmbeddedPlatform, newId, openEmbeddedPlatform } from '@stamp/platform';
import { serveRouter, type ServedRouter } from '@stamp/testkit/http.ts';

import { trackedEventStreamId } from '../track/events.ts';
import { createTrackedEvents, type TrackedEvents } from './index.ts';

interface Stats {
  total: number;
  names: { name: string; count: number }[];
  daily: { date: string; count: number; byName: Record<string, number> }[];
}

const DAY_MS = 86_400_000;

describe('GET /events/stats over time', () => {
  let platform: EmbeddedPlatform;
  let events: TrackedEvents;
  let api: ServedRouter;
  let now = Date.now();
  const modules: ServiceModule[] = [];

  beforeAll(async () => {
    const logger = createLogger({ level: 'silent' });
    platform = openEmbeddedPlatform({ dataDir: ':memory:', logger });
    const awaitViews = awaitViewsOf(modules);
    events = createTrackedEvents({
      store: platform.store,
      bus: platform.bus,
      views: platform.views,
      logger,
      awaitViews,
      now: () => now,
    });
    modules.push({ name: 'tracked-events', ...events });
    await events.start();
    api = await serveRouter(events.router, { projectId: 'project-s', keyKind: 'secret' });
  });
  afterAll(async () => {
    await api.close();
    await events.stop();
    await platform.close();
  });

  /** Appends EventTracked as the track route does; returns the UTC day it was recorded on. */
  async function record(name: string): Promise<string> {
    const id = newId();
    const { position } = await platform.store.append([
      {
        streamId: trackedEventStreamId(id),
        expectedRevision: 'no_stream',
        events: [
          {
            id,
            type: 'EventTracked',
            data: { name, contactId: 'c1', email: 'c1@example.com', data: {} },
            metadata: { projectId: 'project-s', correlationId: 'c', subjectId: 'c1' },
          },
        ],
      },
    ]);
    await awaitViewsOf(modules)(position);
    const [recorded] = await platform.store.readStream(trackedEventStreamId(id));
    return recorded!.createdAt.slice(0, 10);
  }

  async function readStats(): Promise<Stats> {
    const response = await api.request('GET', '/events/stats');
    expect(response.status).toBe(200);
    return response.body as Stats;
  }

  it('answers zeros for a project without events', async () => {
    const empty = await readStats();
    expect(empty.total).toBe(0);
    expect(empty.names).toEqual([]);
    expect(empty.daily).toHaveLength(30);
    expect(empty.daily.every((day) => day.count === 0)).toBe(true);
  });

  it('moves a day’s counts through the 30-day window as time passes', async () => {
    const recorded: [string, string][] = [];
    for (const name of ['signup', 'signup', 'login']) recorded.push([name, await record(name)]);
    /** Expected `daily` entries of the days the events were recorded on. */
    const expected = new Map<string, { count: number; byName: Record<string, number> }>();
    for (const [name, date] of recorded) {
      const day = expected.get(date) ?? { count: 0, byName: {} };
      day.count += 1;
      day.byName[name] = (day.byName[name] ?? 0) + 1;
      expected.set(date, day);
    }
    const newest = recorded[recorded.length - 1]![1];
    const daysBack = (date: string, from: number): number =>
      Math.round((from - Date.parse(`${date}T00:00:00Z`)) / DAY_MS);

    for (const later of [0, 10, 29]) {
      now = Date.parse(`${newest}T12:00:00Z`) + later * DAY_MS;
      const today = Date.parse(`${new Date(now).toISOString().slice(0, 10)}T00:00:00Z`);
      const stats = await readStats();
      expect(stats.daily[29]!.date).toBe(new Date(now).toISOString().slice(0, 10));
      for (const [date, day] of expected) {
        const index = 29 - daysBack(date, today);
        if (index >= 0) expect(stats.daily[index]).toEqual({ date, ...day });
      }
      expect(stats.daily.reduce((sum, day) => sum + day.count, 0)).toBe(
        [...expected]
          .filter(([date]) => daysBack(date, today) < 30)
          .reduce((sum, [, day]) => sum + day.count, 0),
      );
    }

    now = Date.parse(`${newest}T12:00:00Z`) + 30 * DAY_MS;
    const gone = await readStats();
    expect(gone.daily.every((day) => day.count === 0)).toBe(true);
    // Totals are all time.
    expect(gone.total).toBe(3);
    expect(gone.names).toEqual([
      { name: 'signup', count: 2 },
      { name: 'login', count: 1 },
    ]);
  });
});
