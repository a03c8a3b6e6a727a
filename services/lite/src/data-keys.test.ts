import { rmSync } from 'node:fs';

import type { Stamp } from './app.ts';
import { call, getOk, startTestStamp, TEST_KEYS } from './testing.ts';

const sk = TEST_KEYS.secretKey;
const sandboxFrom = 'hello@sandbox.stamp.localhost';

interface Field {
  name: string;
  count: number;
  types?: Record<string, number>;
}

/** Names that are properties of every plain JavaScript object. */
const BUILT_IN = ['constructor', 'toString', 'valueOf', 'hasOwnProperty', 'isPrototypeOf'];

/**
 * Contact data and event data keys named like built-in object properties are data like any
 * other key: counted, listed, deleted and rendered only where a contact holds them.
 */
describe('data keys named like built-in object properties', () => {
  let stamp: Stamp & { dataDir: string };
  const get = <T>(path: string): Promise<T> => getOk<T>(stamp.url, sk, path);
  const fields = async (): Promise<Map<string, Field>> => {
    const listed = await get<{ fields: Field[] }>('/contacts/fields');
    return new Map(listed.fields.map((field) => [field.name, field]));
  };
  let holder = '';

  beforeAll(async () => {
    stamp = await startTestStamp();
    const made = await call(stamp.url, sk, 'POST', '/contacts', {
      email: 'holder@example.org',
      data: { constructor: 'x', toString: 1, valueOf: true, hasOwnProperty: 'y', plan: 'pro' },
    });
    expect(made.status).toBe(201);
    holder = (made.body as { id: string }).id;
    for (const email of ['plain1@example.org', 'plain2@example.org']) {
      expect(
        (await call(stamp.url, sk, 'POST', '/contacts', { email, data: { plan: 'free' } })).status,
      ).toBe(201);
    }
  });
  afterAll(async () => {
    await stamp.close();
    rmSync(stamp.dataDir, { recursive: true, force: true });
  });

  it('counts them on the contacts that hold them, and only there', async () => {
    const listed = await fields();
    expect(listed.get('constructor')).toMatchObject({ count: 1, types: { string: 1 } });
    expect(listed.get('toString')).toMatchObject({ count: 1, types: { number: 1 } });
    expect(listed.get('valueOf')).toMatchObject({ count: 1, types: { boolean: 1 } });
    expect(listed.has('isPrototypeOf')).toBe(false);
    // A change to another key of the holder leaves their counts alone.
    await call(stamp.url, sk, 'PATCH', `/contacts/${holder}`, { data: { plan: 'team' } });
    expect((await fields()).get('constructor')).toMatchObject({ count: 1 });
    // Removing the key uncounts it.
    await call(stamp.url, sk, 'PATCH', `/contacts/${holder}`, { data: { hasOwnProperty: null } });
    expect((await fields()).has('hasOwnProperty')).toBe(false);
  });

  it('lists their distinct values, and 404 for a name no contact holds', async () => {
    const values = await get<{ data: unknown[]; total: number }>(
      '/contacts/fields/constructor/values',
    );
    expect(values).toMatchObject({ data: ['x'], total: 1 });
    for (const name of ['isPrototypeOf', 'hasOwnProperty', '__proto__']) {
      const response = await call(stamp.url, sk, 'GET', `/contacts/fields/${name}/values`);
      expect([name, response.status]).toEqual([name, 404]);
    }
  });

  it('deletes them from the contacts that hold them only', async () => {
    const deleted = await call(stamp.url, sk, 'DELETE', '/contacts/fields/toString');
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ success: true, field: 'toString', affected: 1 });
    const none = await call(stamp.url, sk, 'DELETE', '/contacts/fields/isPrototypeOf');
    expect(none.status).toBe(404);
    const contact = await get<{ data: Record<string, unknown> }>(`/contacts/${holder}`);
    expect(contact.data).toEqual({ constructor: 'x', valueOf: true, plan: 'team' });
  });

  it('renders them in templates only for contacts that hold them', async () => {
    const body = BUILT_IN.map((name) => `[${name}={{ ${name} }}|{{ data.${name} }}]`).join('');
    const rendered: Record<string, string> = {};
    for (const email of ['holder@example.org', 'plain1@example.org']) {
      const sent = await call(stamp.url, sk, 'POST', '/v1/send', {
        to: email,
        from: sandboxFrom,
        subject: 'keys',
        body,
        subscribed: true,
      });
      expect(sent.status).toBe(200);
      const emailId = (sent.body as { data: { emails: { email: string }[] } }).data.emails[0]!
        .email;
      for (let attempt = 0; attempt < 200 && rendered[email] === undefined; attempt++) {
        const message = await call(stamp.url, sk, 'GET', `/outbox/${emailId}`);
        if (message.status === 200) rendered[email] = (message.body as { raw: string }).raw;
        else await new Promise((resolve) => setTimeout(resolve, 25));
      }
    }
    const text = (raw: string | undefined): string =>
      (raw ?? '').replace(/=\r\n/g, '').replace(/=3D/g, '=');
    expect(text(rendered['holder@example.org'])).toContain(
      '[constructor=x|x][toString=|][valueOf=true|true][hasOwnProperty=|][isPrototypeOf=|]',
    );
    expect(text(rendered['plain1@example.org'])).toContain(
      '[constructor=|][toString=|][valueOf=|][hasOwnProperty=|][isPrototypeOf=|]',
    );
  });

  it('keeps tracked events and their data keys as data', async () => {
    for (const event of ['constructor', '__proto__', 'toString', 'toString']) {
      const tracked = await call(stamp.url, sk, 'POST', '/v1/track', {
        event,
        email: 'events@example.org',
        data: { constructor: 'c', valueOf: 2 },
      });
      expect([event, tracked.status]).toEqual([event, 200]);
    }
    const names = await get<{ names: { name: string; count: number }[] }>('/events/names');
    expect(names.names.map(({ name, count }) => [name, count])).toEqual([
      ['__proto__', 1],
      ['constructor', 1],
      ['toString', 2],
    ]);
    const stats = await get<{
      total: number;
      names: { name: string; count: number }[];
      daily: { count: number; byName: Record<string, number> }[];
    }>('/events/stats');
    expect(stats.total).toBe(4);
    const today = stats.daily.at(-1)!;
    expect(today.count).toBe(4);
    expect(Object.entries(today.byName)).toEqual([
      ['__proto__', 1],
      ['constructor', 1],
      ['toString', 2],
    ]);
    const page = await get<{ data: { name: string; data: Record<string, unknown> }[] }>(
      '/events?name=constructor',
    );
    expect(page.data).toHaveLength(1);
    expect(page.data[0]?.data).toEqual({ constructor: 'c', valueOf: 2 });
  });
});
