/** The bucket walk of the feed against a plain sort and filter of every item (seeded inputs). */
import {
  createLogger,
  type EmbeddedPlatform,
  openEmbeddedPlatform,
  type RecordedEvent,
} from '@stamp/platform';

import { countRange } from './counters.ts';
import { contactEvent, emailEvent, queuedData, trackedEvent } from './fixtures.ts';
import { type ActivityItemDocument, type ActivityType, createActivityIndexes } from './items.ts';
import { projectActivity } from './projection.ts';
import { countFeed, type FeedQuery, readFeed } from './query.ts';

/** A small deterministic generator (mulberry32). */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const START = Date.parse('2025-01-30T22:00:00.000Z');
const SPAN = 4 * 24 * 3_600_000;

interface Expected {
  id: string;
  type: ActivityType;
  contactId: string;
  at: number;
}

let platform: EmbeddedPlatform;
const expected: Expected[] = [];

beforeAll(async () => {
  platform = openEmbeddedPlatform({
    dataDir: ':memory:',
    logger: createLogger({ level: 'silent' }),
  });
  await createActivityIndexes(platform.views);
  const next = random(42);
  const events: RecordedEvent[] = [];
  let previous = START;
  for (let n = 0; n < 400; n++) {
    // Clustered times: often the same millisecond or minute as the previous item.
    const roll = next();
    const at =
      roll < 0.15
        ? previous
        : roll < 0.5
          ? previous + Math.floor(next() * 60_000)
          : START + Math.floor(next() * SPAN);
    previous = at;
    const iso = new Date(at).toISOString();
    const contactId = `c${Math.floor(next() * 5)}`;
    const id = `i${String(Math.floor(next() * 1e6)).padStart(6, '0')}-${n}`;
    const kind = Math.floor(next() * 3);
    if (kind === 0) {
      events.push(trackedEvent({ name: 'e', contactId }, { at: iso, id }));
      expected.push({ id, type: 'event.triggered', contactId, at });
    } else if (kind === 1) {
      events.push(
        emailEvent(`m${n}`, 'EmailQueued', queuedData(`m${n}`, contactId, 's'), { at: iso, id }),
      );
      expected.push({ id, type: 'email.sent', contactId, at });
    } else {
      events.push(contactEvent(contactId, 'ContactSubscribed', { at: iso, id }));
      expected.push({ id, type: 'contact.subscribed', contactId, at });
    }
  }
  for (const event of events) await projectActivity(platform.views, event);
});

afterAll(async () => {
  await platform.close();
});

const newestFirst = (a: Expected, b: Expected): number =>
  a.at === b.at ? (a.id < b.id ? 1 : -1) : b.at - a.at;

async function walk(query: Omit<FeedQuery, 'projectId' | 'after'>): Promise<string[]> {
  const ids: string[] = [];
  let after: FeedQuery['after'];
  for (;;) {
    const fetched: ActivityItemDocument[] = await readFeed(platform.views, {
      ...query,
      projectId: 'p1',
      after,
    });
    const pageItems = fetched.slice(0, query.limit);
    ids.push(...pageItems.map((item) => item._id));
    const last = pageItems.at(-1);
    if (fetched.length <= query.limit || last === undefined) return ids;
    after = { at: Date.parse(last.at), id: last._id };
  }
}

it('pages and counts exactly like a sort and filter of every item', async () => {
  const next = random(7);
  const types: (ActivityType | undefined)[] = [undefined, 'event.triggered', 'email.sent'];
  for (let round = 0; round < 60; round++) {
    const a = START - 3_600_000 + Math.floor(next() * (SPAN + 7_200_000));
    const b = START - 3_600_000 + Math.floor(next() * (SPAN + 7_200_000));
    const query = {
      limit: 1 + Math.floor(next() * 40),
      type: types[Math.floor(next() * types.length)],
      contactId: next() < 0.25 ? `c${Math.floor(next() * 5)}` : undefined,
      from: next() < 0.5 ? Math.min(a, b) : undefined,
      to: next() < 0.5 ? Math.max(a, b) : undefined,
    };
    const wanted = expected
      .filter(
        (item) =>
          (query.type === undefined || item.type === query.type) &&
          (query.contactId === undefined || item.contactId === query.contactId) &&
          (query.from === undefined || item.at >= query.from) &&
          (query.to === undefined || item.at <= query.to),
      )
      .sort(newestFirst)
      .map((item) => item.id);
    expect([round, await walk(query)]).toEqual([round, wanted]);
    expect([round, await countFeed(platform.views, { ...query, projectId: 'p1' })]).toEqual([
      round,
      wanted.length,
    ]);
  }
  expect(await countRange(platform.views, 'p1', {})).toBe(expected.length);
});
