import { ApiError } from '@stamp/http-kit';
import { createLogger, openEmbeddedPlatform } from '@stamp/platform';
import type { UpsertRecipientInput, UpsertRecipientResult } from '@stamp/contracts';
import fc from 'fast-check';

import { ContactCommands } from './commands.ts';
import { contactStreamId } from './events.ts';

const logger = createLogger({ level: 'silent' });

/** The contacts of the log: email → {subscribed, data}, rebuilt from the contact streams. */
async function contactsOf(
  platform: ReturnType<typeof openEmbeddedPlatform>,
): Promise<Record<string, unknown>> {
  const events = await platform.store.readAll({
    after: 0,
    categories: ['contact'],
    limit: 100_000,
  });
  const byContact = new Map<string, { email: string; subscribed: boolean; data: object }>();
  for (const event of events) {
    const data = event.data as Record<string, unknown>;
    const current = byContact.get(event.streamId);
    if (event.type === 'ContactCreated') {
      byContact.set(event.streamId, data as { email: string; subscribed: boolean; data: object });
    } else if (current !== undefined && event.type === 'ContactDataChanged') {
      const patch = data as { set: object; unset: string[] };
      const next: Record<string, unknown> = { ...current.data, ...patch.set };
      for (const key of patch.unset) Reflect.deleteProperty(next, key);
      current.data = next;
    } else if (current !== undefined && event.type === 'ContactSubscribed')
      current.subscribed = true;
    else if (current !== undefined && event.type === 'ContactUnsubscribed')
      current.subscribed = false;
  }
  return Object.fromEntries([...byContact.values()].map((contact) => [contact.email, contact]));
}

describe('ContactCommands.upsertRecipients', () => {
  const input = (
    email: string,
    data: Record<string, string | number | null>,
    subscribed?: boolean,
  ) =>
    ({
      projectId: 'p',
      email,
      data,
      defaultSubscribed: true,
      correlationId: 'job',
      ...(subscribed === undefined ? {} : { subscribed }),
    }) satisfies UpsertRecipientInput;

  it('gives the contacts and results of upserting the rows one by one, in order', async () => {
    const rows = fc.array(
      fc.record({
        email: fc.constantFrom('a@x.io', 'B@x.io', 'b@x.io', 'c@x.io', 'not an email'),
        data: fc.dictionary(
          fc.constantFrom('plan', 'seats'),
          fc.oneof(fc.constantFrom('pro', 'free', null), fc.integer({ min: 0, max: 2 })),
          { maxKeys: 2 },
        ),
        subscribed: fc.option(fc.boolean(), { nil: undefined }),
      }),
      { maxLength: 12 },
    );
    await fc.assert(
      fc.asyncProperty(rows, fc.boolean(), async (given, existing) => {
        const inputs = given.map((row) => input(row.email, row.data, row.subscribed));
        const run = async (batch: boolean) => {
          const platform = openEmbeddedPlatform({ dataDir: ':memory:', logger });
          const commands = new ContactCommands({ store: platform.store, logger });
          if (existing) await commands.upsertRecipient(input('a@x.io', { plan: 'old' }, false));
          const results: (UpsertRecipientResult | ApiError)[] = [];
          if (batch) results.push(...(await commands.upsertRecipients(inputs)));
          else {
            for (const one of inputs) {
              try {
                results.push(await commands.upsertRecipient(one));
              } catch (error) {
                if (!(error instanceof ApiError)) throw error;
                results.push(error);
              }
            }
          }
          const shape = results.map((result) =>
            result instanceof ApiError
              ? { error: result.status }
              : {
                  isNew: result.isNew,
                  changed: result.position > 0,
                  data: result.data,
                  email: result.email,
                },
          );
          const contacts = await contactsOf(platform);
          await platform.close();
          return { shape, contacts };
        };
        expect(await run(true)).toEqual(await run(false));
      }),
      { numRuns: 150 },
    );
  });

  it('appends the new contacts of distinct emails together, and answers a conflict row by row', async () => {
    const platform = openEmbeddedPlatform({ dataDir: ':memory:', logger });
    const commands = new ContactCommands({ store: platform.store, logger });
    const first = await commands.upsertRecipients([input('one@x.io', {}), input('two@x.io', {})]);
    const [one, two] = first as { position: number; contactId: string }[];
    expect(one?.position).toBe(two?.position);
    // Another writer changes a contact the commands have cached: the batch meets the conflict.
    const other = new ContactCommands({ store: platform.store, logger });
    await other.upsertRecipient(input('one@x.io', { plan: 'team' }));
    const second = await commands.upsertRecipients([
      input('one@x.io', { seats: 3 }),
      input('three@x.io', {}),
    ]);
    expect(second[0]).toMatchObject({ isNew: false, data: { plan: 'team', seats: 3 } });
    expect(second[1]).toMatchObject({ isNew: true });
    const stream = await platform.store.readStream(contactStreamId(one?.contactId ?? ''));
    expect(stream.map((event) => event.type)).toEqual([
      'ContactCreated',
      'ContactDataChanged',
      'ContactDataChanged',
    ]);
    await platform.close();
  });
});
