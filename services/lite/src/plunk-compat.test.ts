import { rmSync } from 'node:fs';

import type { Stamp } from './app.ts';
import { call, getOk, startTestStamp, TEST_KEYS } from './testing.ts';

const sk = TEST_KEYS.secretKey;
const sandboxFrom = 'hello@sandbox.stamp.localhost';

interface Contact {
  id: string;
  email: string;
  subscribed: boolean;
  createdAt: string;
  updatedAt: string;
}
interface Page<T> {
  data: T[];
  cursor: string;
  hasMore: boolean;
  total: number;
}
interface Template {
  id: string;
  name: string;
  type: string;
  createdAt: string;
  updatedAt: string;
}
interface ErrorBody {
  error: { code: string; errors?: { field: string; code: string }[] };
}

/** Compatibility with Plunk's published API where the specification is silent. */
describe("Plunk's published API", () => {
  let stamp: Stamp & { dataDir: string };
  const get = <T>(path: string): Promise<T> => getOk<T>(stamp.url, sk, path);
  /** Every item of a cursor list, following cursors. */
  const walk = async <T>(path: string): Promise<T[]> => {
    const items: T[] = [];
    let cursor = '';
    for (let pages = 0; pages < 100; pages++) {
      const separator = path.includes('?') ? '&' : '?';
      const page = await get<Page<T>>(
        cursor === '' ? path : `${path}${separator}cursor=${encodeURIComponent(cursor)}`,
      );
      items.push(...page.data);
      if (!page.hasMore) return items;
      cursor = page.cursor;
    }
    throw new Error('too many pages');
  };

  beforeAll(async () => {
    stamp = await startTestStamp();
  });
  afterAll(async () => {
    await stamp.close();
    rmSync(stamp.dataDir, { recursive: true, force: true });
  });

  it('makes a template created without a type MARKETING', async () => {
    const created = await call(stamp.url, sk, 'POST', '/templates', {
      name: 'Untyped',
      from: sandboxFrom,
      subject: 'Hi',
      body: '<p>Hi</p>',
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ type: 'MARKETING' });
  });

  it('answers DELETE /contacts/:id with 204 and no body', async () => {
    const created = await call(stamp.url, sk, 'POST', '/contacts', { email: 'bye@example.org' });
    const id = (created.body as Contact).id;
    const response = await fetch(`${stamp.url}/contacts/${id}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${sk}` },
    });
    expect(response.status).toBe(204);
    expect(await response.text()).toBe('');
    expect((await call(stamp.url, sk, 'GET', `/contacts/${id}`)).status).toBe(404);
  });

  describe('GET /contacts filters and orders', () => {
    const emails = ['delta', 'alpha', 'echo', 'charlie', 'bravo'].map(
      (name) => `${name}@order.example`,
    );
    beforeAll(async () => {
      for (const [index, email] of emails.entries()) {
        const made = await call(stamp.url, sk, 'POST', '/contacts', {
          email,
          subscribed: index % 2 === 0,
        });
        expect(made.status).toBe(201);
      }
      // Touch the first one, so updatedAt differs from createdAt order.
      const first = await get<Page<Contact>>('/contacts?search=delta@order');
      await call(stamp.url, sk, 'PATCH', `/contacts/${first.data[0]!.id}`, {
        data: { touched: true },
      });
    });

    it('filters by subscribed, combined with search', async () => {
      const subscribed = await get<Page<Contact>>('/contacts?search=order.example&subscribed=true');
      expect(subscribed.data.map((contact) => contact.email).sort()).toEqual([
        'bravo@order.example',
        'delta@order.example',
        'echo@order.example',
      ]);
      expect(subscribed.total).toBe(3);
      const unsubscribed = await get<Page<Contact>>(
        '/contacts?search=order.example&subscribed=false',
      );
      expect(unsubscribed.data.every((contact) => !contact.subscribed)).toBe(true);
      expect(unsubscribed.total).toBe(2);
    });

    it('sorts by email both ways, paging exactly through the order', async () => {
      const ascending = await walk<Contact>(
        '/contacts?search=order.example&sort=email&dir=asc&limit=2',
      );
      expect(ascending.map((contact) => contact.email)).toEqual([...emails].sort());
      const descending = await walk<Contact>('/contacts?search=order.example&sort=email&limit=2');
      expect(descending.map((contact) => contact.email)).toEqual([...emails].sort().reverse());
      const subscribed = await walk<Contact>(
        '/contacts?search=order.example&subscribed=true&sort=email&dir=asc&limit=1',
      );
      expect(subscribed.map((contact) => contact.email)).toEqual([
        'bravo@order.example',
        'delta@order.example',
        'echo@order.example',
      ]);
    });

    it('sorts by createdAt and updatedAt, newest first by default', async () => {
      const byDefault = await walk<Contact>('/contacts?search=order.example&limit=2');
      expect(byDefault.map((contact) => contact.email)).toEqual([...emails].reverse());
      const oldest = await walk<Contact>(
        '/contacts?search=order.example&sort=createdAt&dir=asc&limit=2',
      );
      expect(oldest.map((contact) => contact.email)).toEqual(emails);
      const created = oldest.map((contact) => contact.createdAt);
      expect(created).toEqual([...created].sort());
      const updated = await walk<Contact>('/contacts?search=order.example&sort=updatedAt&limit=2');
      expect(updated[0]?.email).toBe('delta@order.example');
      const times = updated.map((contact) => contact.updatedAt);
      expect(times).toEqual([...times].sort().reverse());
    });

    it('refuses an unknown sort field or direction, and a cursor of another order', async () => {
      for (const [query, field] of [
        ['sort=name', 'sort'],
        ['sort=data.plan', 'sort'],
        ['dir=up', 'dir'],
        ['subscribed=yes', 'subscribed'],
      ]) {
        const response = await call(stamp.url, sk, 'GET', `/contacts?${query}`);
        expect([query, response.status]).toEqual([query, 422]);
        expect((response.body as ErrorBody).error.errors?.[0]?.field).toBe(field);
      }
      const page = await get<Page<Contact>>('/contacts?sort=email&limit=1');
      const other = await call(
        stamp.url,
        sk,
        'GET',
        `/contacts?sort=createdAt&cursor=${page.cursor}`,
      );
      expect(other.status).toBe(422);
      expect((other.body as ErrorBody).error.errors?.[0]).toMatchObject({
        field: 'cursor',
        code: 'invalid_cursor',
      });
    });
  });

  it('clamps a cursor list limit above 100 to 100, and refuses one below 1', async () => {
    for (let index = 0; index < 101; index++) {
      const made = await call(stamp.url, sk, 'POST', '/contacts', {
        email: `bulk${index}@clamp.example`,
      });
      expect(made.status).toBe(201);
    }
    const page = await get<Page<Contact>>('/contacts?search=clamp.example&limit=500');
    expect(page.data).toHaveLength(100);
    expect(page).toMatchObject({ hasMore: true, total: 101 });
    for (const path of ['/events?limit=1000', '/activity?limit=101', '/outbox?limit=250']) {
      expect([path, (await call(stamp.url, sk, 'GET', path)).status]).toEqual([path, 200]);
    }
    for (const limit of ['0', '-3', 'ten', '2.5']) {
      const response = await call(stamp.url, sk, 'GET', `/contacts?limit=${limit}`);
      expect([limit, response.status]).toEqual([limit, 422]);
      expect((response.body as ErrorBody).error.errors?.[0]?.field).toBe('limit');
    }
  });

  it('sorts GET /templates and returns its items under data as well as templates', async () => {
    for (const name of ['Charlie', 'alpha', 'Bravo']) {
      const made = await call(stamp.url, sk, 'POST', '/templates', {
        name: `sorted ${name}`,
        type: 'TRANSACTIONAL',
        from: sandboxFrom,
        subject: 's',
        body: '<p>b</p>',
      });
      expect(made.status).toBe(201);
    }
    const byName = await get<{ data: Template[]; templates: Template[] }>(
      '/templates?search=sorted&sort=name&dir=asc',
    );
    expect(byName.data.map((template) => template.name)).toEqual([
      'sorted Bravo',
      'sorted Charlie',
      'sorted alpha',
    ]);
    expect(byName.templates).toEqual(byName.data);
    const paged = await walk<Template>('/templates?search=sorted&sort=name&dir=desc&limit=1');
    expect(paged.map((template) => template.name)).toEqual([
      'sorted alpha',
      'sorted Charlie',
      'sorted Bravo',
    ]);
    const oldest = await get<{ data: Template[] }>(
      '/templates?search=sorted&sort=createdAt&dir=asc',
    );
    expect(oldest.data.map((template) => template.name)).toEqual([
      'sorted Charlie',
      'sorted alpha',
      'sorted Bravo',
    ]);
    const newest = await get<{ data: Template[] }>('/templates?search=sorted');
    expect(newest.data.map((template) => template.name)).toEqual([
      'sorted Bravo',
      'sorted alpha',
      'sorted Charlie',
    ]);
    const bad = await call(stamp.url, sk, 'GET', '/templates?sort=subject');
    expect(bad.status).toBe(422);
  });

  it('answers 422 on field cursor for a cursor no page of the list produced, on every list', async () => {
    const contact = await call(stamp.url, sk, 'POST', '/v1/track', {
      event: 'visited',
      email: 'cursor@example.org',
      data: { plan: 'pro' },
    });
    const contactId = (contact.body as { data: { contact: string } }).data.contact;
    const lists = [
      '/contacts',
      '/templates',
      '/events',
      `/events/contact/${contactId}`,
      '/activity',
      '/outbox',
      '/contacts/fields/plan/values',
    ];
    const bad = [
      'garbage',
      '%%%',
      Buffer.from('{"not":"ours"}').toString('base64url'),
      Buffer.from('[1,2,3]').toString('base64url'),
      '01a20db1-97c9-7bb6-a2dc-ccc438d5ef29',
      '12',
    ];
    for (const list of lists) {
      for (const cursor of bad) {
        // A decimal log position is the events' own cursor shape.
        if (list.startsWith('/events') && cursor === '12') continue;
        const response = await call(
          stamp.url,
          sk,
          'GET',
          `${list}?cursor=${encodeURIComponent(cursor)}`,
        );
        expect([list, cursor, response.status]).toEqual([list, cursor, 422]);
        expect((response.body as ErrorBody).error).toMatchObject({
          code: 'VALIDATION_ERROR',
          errors: [{ field: 'cursor' }],
        });
      }
      // The cursor of the first page leads to the second.
      const first = await call(stamp.url, sk, 'GET', `${list}?limit=1`);
      expect([list, first.status]).toEqual([list, 200]);
      const { cursor } = first.body as Page<unknown>;
      if (cursor !== '') {
        const next = await call(stamp.url, sk, 'GET', `${list}?limit=1&cursor=${cursor}`);
        expect([list, next.status]).toEqual([list, 200]);
      }
    }
  });
});
