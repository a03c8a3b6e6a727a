import {
  createLogger,
  type EmbeddedPlatform,
  newId,
  openEmbeddedPlatform,
  type RecordedEvent,
} from '@stamp/platform';

import { trackedEventStreamId } from '../track/events.ts';
import { trackedEventNameStreamId } from './events.ts';
import { TrackedEventsProjection } from './projection.ts';
import {
  createTrackedEventIndexes,
  TRACKED_EVENT_BUCKETS_VIEW,
  TRACKED_EVENT_DAYS_VIEW,
  TRACKED_EVENT_ERASURES_VIEW,
  TRACKED_EVENT_NAMES_VIEW,
  TRACKED_EVENTS_VIEW,
  trackedEventViews,
} from './views.ts';

const PROJECT = 'project-p';

describe('tracked-events projection', () => {
  let platform: EmbeddedPlatform;
  let projection: TrackedEventsProjection;

  beforeEach(async () => {
    platform = openEmbeddedPlatform({
      dataDir: ':memory:',
      logger: createLogger({ level: 'silent' }),
    });
    await createTrackedEventIndexes(platform.views);
    projection = new TrackedEventsProjection({ views: platform.views, store: platform.store });
  });
  afterEach(async () => {
    await platform.close();
  });

  /** Appends EventTracked as the track route does; returns the recorded event. */
  async function track(
    name: string,
    contactId: string,
    projectId = PROJECT,
    data: Record<string, string | number | boolean> = {},
  ): Promise<RecordedEvent> {
    const id = newId();
    const streamId = trackedEventStreamId(id);
    await platform.store.append([
      {
        streamId,
        expectedRevision: 'no_stream',
        events: [
          {
            id,
            type: 'EventTracked',
            data: { name, contactId, email: `${contactId}@example.com`, data },
            metadata: { projectId, correlationId: 'c', subjectId: contactId },
          },
        ],
      },
    ]);
    const [event] = await platform.store.readStream(streamId);
    return event!;
  }

  async function appendOne(
    streamId: string,
    type: string,
    data: unknown,
    projectId = PROJECT,
  ): Promise<RecordedEvent> {
    await platform.store.append([
      {
        streamId,
        expectedRevision: 'any',
        events: [{ type, data, metadata: { projectId, correlationId: 'c' } }],
      },
    ]);
    const events = await platform.store.readStream(streamId);
    return events[events.length - 1]!;
  }

  const contactDeleted = (contactId: string): Promise<RecordedEvent> =>
    appendOne(`contact-${contactId}`, 'ContactDeleted', {});

  const namesDeleted = (name: string, upToPosition: number): Promise<RecordedEvent> =>
    appendOne(trackedEventNameStreamId(PROJECT, name), 'TrackedEventsDeleted', {
      name,
      upToPosition,
    });

  /** Every document of the five collections, by collection, sorted by id. */
  async function snapshot(): Promise<Record<string, unknown[]>> {
    const result: Record<string, unknown[]> = {};
    for (const name of [
      TRACKED_EVENTS_VIEW,
      TRACKED_EVENT_BUCKETS_VIEW,
      TRACKED_EVENT_NAMES_VIEW,
      TRACKED_EVENT_DAYS_VIEW,
      TRACKED_EVENT_ERASURES_VIEW,
    ]) {
      const documents = await platform.views.collection(name).find({});
      result[name] = documents.sort((a, b) => (a._id < b._id ? -1 : 1));
    }
    return result;
  }

  async function counts(): Promise<{ events: number; names: Record<string, number> }> {
    const views = trackedEventViews(platform.views);
    const names: Record<string, number> = {};
    for (const counter of await views.names.find({ projectId: PROJECT })) {
      names[counter.name] = counter.count;
    }
    const buckets = await views.buckets.find({ projectId: PROJECT });
    const days = await views.days.find({ projectId: PROJECT });
    const events = await views.events.countDocuments({ projectId: PROJECT });
    // The three counters always agree with the documents.
    expect(buckets.reduce((sum, { count }) => sum + count, 0)).toBe(events);
    expect(days.reduce((sum, { count }) => sum + count, 0)).toBe(events);
    expect(Object.values(names).reduce((sum, count) => sum + count, 0)).toBe(events);
    return { events, names };
  }

  it('projects an event once: a replay changes nothing', async () => {
    const event = await track('signup', 'c1', PROJECT, { plan: 'pro' });
    await projection.handle(event);
    const once = await snapshot();
    await projection.handle(event);
    expect(await snapshot()).toEqual(once);
    expect(once[TRACKED_EVENTS_VIEW]).toEqual([
      {
        _id: event.id,
        projectId: PROJECT,
        name: 'signup',
        contactId: 'c1',
        data: { plan: 'pro' },
        createdAt: event.createdAt,
        position: event.position,
        bucket: Math.floor(event.position / 1024),
      },
    ]);
    expect(once[TRACKED_EVENT_NAMES_VIEW]).toEqual([
      expect.objectContaining({ name: 'signup', count: 1, lastSeenAt: event.createdAt }),
    ]);
    expect(JSON.stringify(once)).not.toContain('c1@example.com');
    expect(await counts()).toEqual({ events: 1, names: { signup: 1 } });
  });

  it('skips an erased event (its contact was crypto-shredded)', async () => {
    const event = await track('signup', 'c-erased');
    await platform.store.eraseSubject('c-erased');
    const [erased] = await platform.store.readStream(event.streamId);
    expect(erased?.erased).toBe(true);
    await projection.handle(erased!);
    expect(await counts()).toEqual({ events: 0, names: {} });
  });

  it('ContactDeleted removes the contact’s events and counters; a late event stays out', async () => {
    const first = await track('signup', 'c1');
    const second = await track('purchase', 'c1');
    const other = await track('signup', 'c2');
    const late = await track('purchase', 'c1');
    for (const event of [first, second, other]) await projection.handle(event);
    expect(await counts()).toEqual({ events: 3, names: { signup: 2, purchase: 1 } });

    const deletion = await contactDeleted('c1');
    await projection.handle(deletion);
    await projection.handle(deletion);
    expect(await counts()).toEqual({ events: 1, names: { signup: 1 } });
    // The event read before the erasure arrives after the deletion: never projected.
    await projection.handle(late);
    await projection.handle(first);
    expect(await counts()).toEqual({ events: 1, names: { signup: 1 } });
    const names = await trackedEventViews(platform.views).names.find({});
    expect(names.map(({ name }) => name)).toEqual(['signup']);
  });

  /** Runs `work` after `ticks` turns of the microtask queue. */
  async function afterTicks(ticks: number, work: () => Promise<void>): Promise<void> {
    for (let tick = 0; tick < ticks; tick++) await Promise.resolve();
    await work();
  }

  it('an event handled concurrently with a deletion never survives it, whatever the interleaving', async () => {
    for (let ticks = 0; ticks < 40; ticks++) {
      const contactId = `c-race-${ticks}`;
      const event = await track('signup', contactId);
      const deletion = await contactDeleted(contactId);
      await Promise.all([
        projection.handle(event),
        afterTicks(ticks, () => projection.handle(deletion)),
      ]);
      const name = `race-${ticks}`;
      const named = await track(name, 'c-stays');
      const namedDeletion = await namesDeleted(name, named.position);
      await Promise.all([
        projection.handle(named),
        afterTicks(ticks, () => projection.handle(namedDeletion)),
      ]);
      expect(await counts()).toEqual({ events: 0, names: {} });
    }
  });

  it('TrackedEventsDeleted removes the name up to its position; later events stay', async () => {
    const kept = await track('purchase', 'c1');
    const gone = [await track('signup', 'c1'), await track('signup', 'c2')];
    const lagging = await track('signup', 'c3');
    const upTo = lagging.position;
    const later = await track('signup', 'c4');
    for (const event of [kept, ...gone, later]) await projection.handle(event);
    expect(await counts()).toEqual({ events: 4, names: { purchase: 1, signup: 3 } });

    const deletion = await namesDeleted('signup', upTo);
    await projection.handle(deletion);
    await projection.handle(deletion);
    expect(await counts()).toEqual({ events: 2, names: { purchase: 1, signup: 1 } });
    const left = await trackedEventViews(platform.views).events.find({ projectId: PROJECT });
    expect(left.map(({ _id }) => _id).sort()).toEqual([kept.id, later.id].sort());

    // An event of the name up to the position that reaches the projection late is skipped, and
    // its stream leaves the log.
    await projection.handle(lagging);
    expect(await counts()).toEqual({ events: 2, names: { purchase: 1, signup: 1 } });
    expect(await platform.store.readStream(lagging.streamId)).toEqual([]);
  });

  it('a deletion of another project’s name leaves this project alone', async () => {
    const event = await track('signup', 'c1');
    await projection.handle(event);
    await projection.handle(
      await appendOne(
        trackedEventNameStreamId('project-other', 'signup'),
        'TrackedEventsDeleted',
        { name: 'signup', upToPosition: event.position + 10 },
        'project-other',
      ),
    );
    expect(await counts()).toEqual({ events: 1, names: { signup: 1 } });
  });

  it('rebuilds the same views by replaying the log', async () => {
    const events = [
      await track('signup', 'c1'),
      await track('signup', 'c2'),
      await track('purchase', 'c2'),
      await track('visit', 'c3'),
    ];
    const deletions = [
      await contactDeleted('c1'),
      await namesDeleted('visit', events[3]!.position),
    ];
    for (const event of [...events, ...deletions]) await projection.handle(event);
    const built = await snapshot();

    for (const name of Object.keys(built)) await platform.views.drop(name);
    for (const event of await platform.store.readAll({ after: 0 })) {
      await projection.handle(event);
    }
    expect(await snapshot()).toEqual(built);
    expect(await counts()).toEqual({ events: 2, names: { signup: 1, purchase: 1 } });
  });

  it('gives the same views from batches of any size as from one event at a time', async () => {
    const events = [
      await track('signup', 'c1'),
      await track('signup', 'c2'),
      await track('purchase', 'c2'),
      await track('visit', 'c3'),
    ];
    events.push(await contactDeleted('c1'));
    events.push(await track('visit', 'c3'));
    events.push(await namesDeleted('visit', events[3]!.position));
    events.push(await track('purchase', 'c1'));
    events.push(await track('visit', 'c2'));
    for (const event of events) await projection.handle(event);
    const oneByOne = await snapshot();
    for (const size of [2, 3, events.length]) {
      for (const name of Object.keys(oneByOne)) await platform.views.drop(name);
      await createTrackedEventIndexes(platform.views);
      for (let start = 0; start < events.length; start += size) {
        await projection.handleBatch(events.slice(start, start + size));
      }
      expect(await snapshot()).toEqual(oneByOne);
      // A batch handled again (a retry after a crash) changes nothing.
      await projection.handleBatch(events);
      expect(await snapshot()).toEqual(oneByOne);
    }
  });
});
