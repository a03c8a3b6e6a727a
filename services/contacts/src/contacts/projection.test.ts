import { createLogger, openEmbeddedPlatform, type RecordedEvent } from '@stamp/platform';
import fc from 'fast-check';

import { contactFieldsView } from '../fields/projection.ts';

import { type ContactEvent } from './events.ts';
import { contactsView, createContactIndexes, projectContactEvents } from './projection.ts';

const recorded = (revision: number, event: ContactEvent): RecordedEvent => ({
  id: `e${revision}`,
  streamId: 'contact-c1',
  revision,
  position: revision + 1,
  type: event.type,
  schemaVersion: 1,
  data: event.data,
  metadata: { projectId: 'p', correlationId: 'r' },
  createdAt: new Date(Date.UTC(2025, 0, 1, 0, 0, revision)).toISOString(),
});

describe('contacts projection', () => {
  it('is idempotent: replayed events change nothing; deletion removes the document', async () => {
    const platform = openEmbeddedPlatform({
      dataDir: ':memory:',
      logger: createLogger({ level: 'silent' }),
    });
    await createContactIndexes(platform.views);
    const events = [
      recorded(0, {
        type: 'ContactCreated',
        data: { email: 'a@x.com', subscribed: true, data: { plan: 'pro' } },
      }),
      recorded(1, { type: 'ContactDataChanged', data: { set: { seats: 2 }, unset: ['plan'] } }),
      recorded(2, { type: 'ContactEmailChanged', data: { from: 'a@x.com', to: 'b@x.com' } }),
      recorded(3, { type: 'ContactUnsubscribed', data: {} }),
    ];
    for (const event of events) await projectContactEvents(platform.views, [event]);
    const expected = {
      _id: 'c1',
      projectId: 'p',
      email: 'b@x.com',
      subscribed: false,
      data: { seats: 2 },
      createdAt: '2025-01-01T00:00:00.000Z',
      updatedAt: '2025-01-01T00:00:03.000Z',
      revision: 3,
    };
    expect(await contactsView(platform.views).findOne({ _id: 'c1' })).toEqual(expected);
    for (const event of events) await projectContactEvents(platform.views, [event]);
    expect(await contactsView(platform.views).findOne({ _id: 'c1' })).toEqual(expected);

    await projectContactEvents(platform.views, [recorded(4, { type: 'ContactDeleted', data: {} })]);
    expect(await contactsView(platform.views).findOne({ _id: 'c1' })).toBeNull();
    await platform.close();
  });
});

describe('contacts projection in batches', () => {
  /** A contact's history: created, then data, email and subscription changes, maybe deleted. */
  const history = fc
    .tuple(
      fc.array(
        fc.oneof(
          fc.record({
            type: fc.constant('ContactDataChanged' as const),
            data: fc.record({
              set: fc.dictionary(
                fc.constantFrom('plan', 'seats', 'constructor', 'city'),
                fc.oneof(fc.integer({ min: 0, max: 3 }), fc.constantFrom('a', 'b'), fc.boolean()),
                { maxKeys: 2 },
              ),
              unset: fc.subarray(['plan', 'seats', 'constructor', 'city']),
            }),
          }),
          fc.constant({ type: 'ContactSubscribed' as const, data: {} }),
          fc.constant({ type: 'ContactUnsubscribed' as const, data: {} }),
          fc.constant({
            type: 'ContactEmailChanged' as const,
            data: { from: 'x@y.z', to: 'new@y.z' },
          }),
        ),
        { maxLength: 5 },
      ),
      fc.boolean(),
    )
    .map(([changes, deleted]): ContactEvent[] => [
      {
        type: 'ContactCreated',
        data: { email: 'x@y.z', subscribed: true, data: { plan: 'pro', constructor: 1 } },
      },
      ...(changes as ContactEvent[]),
      ...(deleted ? [{ type: 'ContactDeleted' as const, data: {} }] : []),
    ]);

  it('gives the views of one event at a time, whatever the batches and replays', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(history, { minLength: 1, maxLength: 4 }),
        fc.array(fc.integer({ min: 1, max: 6 }), { minLength: 1, maxLength: 10 }),
        fc.integer({ min: 0, max: 5 }),
        async (histories, sizes, replayed) => {
          // Interleave the contacts' streams into one log, as the bus delivers it.
          const log: RecordedEvent[] = [];
          const next = histories.map(() => 0);
          let position = 0;
          while (next.some((index, contact) => index < (histories[contact]?.length ?? 0))) {
            for (const [contact, events] of histories.entries()) {
              const revision = next[contact] ?? 0;
              const event = events[revision];
              if (event === undefined) continue;
              position += 1;
              log.push({
                ...recorded(revision, event),
                id: `e${position}`,
                streamId: `contact-c${contact}`,
                position,
              });
              next[contact] = revision + 1;
            }
          }
          const views = async (apply: (platform: ReturnType<typeof open>) => Promise<void>) => {
            const platform = open();
            await createContactIndexes(platform.views);
            await apply(platform);
            const state = {
              contacts: await contactsView(platform.views).find({}, { sort: { _id: 1 } }),
              fields: await contactFieldsView(platform.views).find({}, { sort: { _id: 1 } }),
            };
            await platform.close();
            return state;
          };
          const one = await views(async (platform) => {
            for (const event of log) await projectContactEvents(platform.views, [event]);
          });
          const batched = await views(async (platform) => {
            // At-least-once: a batch may start again a few events back.
            let start = 0;
            for (const size of [...sizes, log.length]) {
              if (start >= log.length) break;
              const from = Math.max(0, start - (size % 2 === 0 ? replayed : 0));
              await projectContactEvents(platform.views, log.slice(from, start + size));
              start += size;
            }
          });
          expect(batched).toEqual(one);
          for (const field of one.fields) expect(field.count).toBeGreaterThanOrEqual(0);
        },
      ),
      { numRuns: 200 },
    );
  });
});

function open() {
  return openEmbeddedPlatform({ dataDir: ':memory:', logger: createLogger({ level: 'silent' }) });
}
