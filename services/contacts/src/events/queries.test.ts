import { CONTACTS_VIEW } from '@stamp/contracts';
import {
  createLogger,
  type EmbeddedPlatform,
  newId,
  openEmbeddedPlatform,
  type RecordedEvent,
} from '@stamp/platform';

import { TrackedEventsProjection } from './projection.ts';
import { type EventPageQuery, TrackedEventQueries } from './queries.ts';
import { BUCKET_SIZE, createTrackedEventIndexes } from './views.ts';

describe('tracked-event pages across many buckets', () => {
  let platform: EmbeddedPlatform;
  let queries: TrackedEventQueries;
  /** Events of project `p` in log order. */
  const mine: { id: string; name: string; contactId: string; position: number }[] = [];

  beforeAll(async () => {
    platform = openEmbeddedPlatform({
      dataDir: ':memory:',
      logger: createLogger({ level: 'silent' }),
    });
    await createTrackedEventIndexes(platform.views);
    const projection = new TrackedEventsProjection({
      views: platform.views,
      store: platform.store,
    });
    queries = new TrackedEventQueries(platform.views);
    await platform.views
      .collection(CONTACTS_VIEW)
      .insertOne({ _id: 'c0', projectId: 'p', email: 'c0@example.com' });
    // 400 events over ~300 buckets (more than one directory read), some buckets holding several,
    // interleaved with another project's events.
    let position = 0;
    for (let index = 0; index < 400; index++) {
      position += index % 4 === 0 ? 1 : Math.floor(BUCKET_SIZE * 0.99);
      const projectId = index % 5 === 4 ? 'q' : 'p';
      const name = index % 3 === 0 ? 'rare' : 'common';
      const contactId = `c${index % 7}`;
      const id = newId();
      const event: RecordedEvent = {
        id,
        streamId: `trackedEvent-${id}`,
        revision: 0,
        position,
        type: 'EventTracked',
        schemaVersion: 1,
        data: { name, contactId, email: `${contactId}@example.com`, data: { index } },
        metadata: { projectId },
        createdAt: new Date().toISOString(),
      };
      await projection.handle(event);
      if (projectId === 'p') mine.push({ id, name, contactId, position });
    }
  });
  afterAll(async () => {
    await platform.close();
  });

  async function all(
    read: (query: EventPageQuery) => ReturnType<TrackedEventQueries['page']>,
    limit: number,
  ): Promise<{ ids: string[]; total: number }> {
    let page = await read({ limit });
    const { total } = page;
    const ids = page.data.map(({ id }) => id);
    while (page.hasMore) {
      page = await read({ limit, cursor: Number(page.cursor) });
      expect(page.total).toBe(0);
      ids.push(...page.data.map(({ id }) => id));
    }
    return { ids, total };
  }

  const newestFirst = (events: typeof mine): string[] => events.map(({ id }) => id).reverse();

  it.each([1, 7, 100])('walks every event newest first, %i at a time', async (limit) => {
    expect(await all((query) => queries.page('p', query), limit)).toEqual({
      ids: newestFirst(mine),
      total: mine.length,
    });
  });

  it('walks one name', async () => {
    const rare = mine.filter(({ name }) => name === 'rare');
    expect(await all((query) => queries.page('p', { ...query, name: 'rare' }), 9)).toEqual({
      ids: newestFirst(rare),
      total: rare.length,
    });
  });

  it('starts after a cursor in the middle of a bucket', async () => {
    const middle = mine[150]!;
    const page = await queries.page('p', { limit: 5, cursor: middle.position });
    expect(page.data.map(({ id }) => id)).toEqual(newestFirst(mine.slice(145, 150)));
  });

  it('walks one contact, with its email joined', async () => {
    const c0 = mine.filter(({ contactId }) => contactId === 'c0');
    expect(await all((query) => queries.contactPage('p', 'c0', query), 6)).toEqual({
      ids: newestFirst(c0),
      total: c0.length,
    });
    const page = await queries.contactPage('p', 'c0', { limit: 1 });
    expect(page.data[0]?.contact).toEqual({ id: 'c0', email: 'c0@example.com' });
    // Contacts missing from the contacts view are answered with `contact: null`.
    const other = await queries.page('p', { limit: 20 });
    expect(
      other.data.filter((item) => item.contactId !== 'c0').every((item) => item.contact === null),
    ).toBe(true);
  });
});
