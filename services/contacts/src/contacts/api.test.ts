import type { ServedRouter } from '@stamp/testkit/http.ts';

import { type ContactsHarness, startContacts } from '../testing.ts';

interface Contact {
  id: string;
  email: string;
  subscribed: boolean;
  data: Record<string, unknown>;
  createdAt: string;
  updatedAt: string;
  _meta?: { isNew: boolean; isUpdate: boolean };
}
interface Page {
  data: Contact[];
  cursor: string | null;
  hasMore: boolean;
  total: number;
}
interface ErrorBody {
  error: { code: string; statusCode: number; errors?: { field: string; code: string }[] };
}

describe('contacts API', () => {
  let harness: ContactsHarness;
  let api: ServedRouter;
  let other: ServedRouter;

  beforeAll(async () => {
    harness = await startContacts();
    api = await harness.as('project-a');
    other = await harness.as('project-b');
  });
  afterAll(async () => {
    await harness.close();
  });

  it('POST /contacts upserts by email with _meta, and GET sees it at once', async () => {
    const first = await api.request('POST', '/contacts', {
      email: '  Ada@Example.com ',
      data: { plan: 'pro', id: 'dropped', empty: '' },
    });
    expect(first.status).toBe(201);
    const created = first.body as Contact;
    expect(created).toMatchObject({
      email: 'ada@example.com',
      subscribed: true,
      data: { plan: 'pro' },
      _meta: { isNew: true, isUpdate: false },
    });
    expect(Date.parse(created.createdAt)).not.toBeNaN();

    const got = await api.request('GET', `/contacts/${created.id}`);
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({ id: created.id, email: 'ada@example.com' });
    expect((got.body as Contact)._meta).toBeUndefined();

    const second = await api.request('POST', '/contacts', {
      email: 'ada@example.com',
      subscribed: false,
      data: { plan: null, seats: 3 },
    });
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({
      id: created.id,
      subscribed: false,
      data: { seats: 3 },
      _meta: { isNew: false, isUpdate: true },
    });

    const events = await harness.platform.store.readStream(`contact-${created.id}`);
    expect(events.map((event) => event.type)).toEqual([
      'ContactCreated',
      'ContactDataChanged',
      'ContactUnsubscribed',
    ]);
    expect(events[0]?.metadata.projectId).toBe('project-a');

    // a repeat changes nothing and appends nothing
    await api.request('POST', '/contacts', { email: 'ada@example.com', data: { seats: 3 } });
    expect(await harness.platform.store.readStream(`contact-${created.id}`)).toHaveLength(3);
  });

  it('validates the body: bad email, nested data', async () => {
    const bad = await api.request('POST', '/contacts', { email: 'not-an-email' });
    expect(bad.status).toBe(422);
    expect((bad.body as ErrorBody).error.code).toBe('VALIDATION_ERROR');
    expect((bad.body as ErrorBody).error.errors?.[0]?.field).toBe('email');
    const nested = await api.request('POST', '/contacts', {
      email: 'n@example.com',
      data: { deep: { a: 1 } },
    });
    expect(nested.status).toBe(422);
    const long = await api.request('POST', '/contacts', {
      email: 'n@example.com',
      data: { k: 'x'.repeat(2001) },
    });
    expect(long.status).toBe(422);
  });

  it('GET /contacts/:id is 404 for unknown ids and for another project', async () => {
    const created = (await api.request('POST', '/contacts', { email: 'iso@example.com' }))
      .body as Contact;
    const cross = await other.request('GET', `/contacts/${created.id}`);
    expect(cross.status).toBe(404);
    expect((cross.body as ErrorBody).error.code).toBe('CONTACT_NOT_FOUND');
    expect((await api.request('GET', '/contacts/nope')).status).toBe(404);
    expect(
      (await other.request('PATCH', `/contacts/${created.id}`, { subscribed: false })).status,
    ).toBe(404);
    expect((await other.request('DELETE', `/contacts/${created.id}`)).status).toBe(404);
    // the same email is free in another project
    const b = await other.request('POST', '/contacts', { email: 'iso@example.com' });
    expect(b.status).toBe(201);
    expect((b.body as Contact).id).not.toBe(created.id);
  });

  it('PATCH changes email, data and subscription; 409 on an email in use', async () => {
    const one = (await api.request('POST', '/contacts', { email: 'one@example.com' }))
      .body as Contact;
    const two = (await api.request('POST', '/contacts', { email: 'two@example.com' }))
      .body as Contact;

    const taken = await api.request('PATCH', `/contacts/${one.id}`, { email: 'TWO@example.com' });
    expect(taken.status).toBe(409);
    expect((taken.body as ErrorBody).error.code).toBe('CONFLICT');

    const moved = await api.request('PATCH', `/contacts/${one.id}`, {
      email: 'uno@example.com',
      subscribed: false,
      data: { lang: 'it' },
    });
    expect(moved.status).toBe(200);
    expect(moved.body).toMatchObject({
      id: one.id,
      email: 'uno@example.com',
      subscribed: false,
      data: { lang: 'it' },
    });

    // the old email is free again; the new one belongs to contact one
    const again = await api.request('POST', '/contacts', { email: 'one@example.com' });
    expect(again.status).toBe(201);
    expect((again.body as Contact).id).not.toBe(one.id);
    const same = await api.request('POST', '/contacts', { email: 'uno@example.com' });
    expect(same.body).toMatchObject({ id: one.id, _meta: { isNew: false } });
    // two can now not take uno either
    expect(
      (await api.request('PATCH', `/contacts/${two.id}`, { email: 'uno@example.com' })).status,
    ).toBe(409);

    const flips = (await harness.platform.store.readStream(`contact-${one.id}`)).map((e) => e.type);
    expect(flips.filter((type) => type === 'ContactUnsubscribed')).toHaveLength(1);
    await api.request('PATCH', `/contacts/${one.id}`, { subscribed: false });
    const after = (await harness.platform.store.readStream(`contact-${one.id}`)).map((e) => e.type);
    expect(after).toEqual(flips);
  });

  it('DELETE removes the contact and frees its email', async () => {
    const gone = (await api.request('POST', '/contacts', { email: 'gone@example.com' }))
      .body as Contact;
    const deleted = await api.request('DELETE', `/contacts/${gone.id}`);
    expect(deleted.status).toBe(204);
    expect(deleted.body).toBeUndefined();
    expect((await api.request('GET', `/contacts/${gone.id}`)).status).toBe(404);
    expect((await api.request('DELETE', `/contacts/${gone.id}`)).status).toBe(404);
    const back = await api.request('POST', '/contacts', { email: 'gone@example.com' });
    expect(back.status).toBe(201);
    expect((back.body as Contact).id).not.toBe(gone.id);
  });

  it('GET /contacts pages newest first with total on the first page only, and searches', async () => {
    const project = await harness.as('project-list');
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const created = await project.request('POST', '/contacts', {
        email: `user${i}@list.example.com`,
      });
      ids.push((created.body as Contact).id);
    }
    await project.request('POST', '/contacts', { email: 'a.b+tag@other.example.org' });

    const first = (await project.request('GET', '/contacts?limit=2&search=LIST.example'))
      .body as Page;
    expect(first.data.map((c) => c.id)).toEqual([ids[4], ids[3]]);
    expect(first).toMatchObject({ hasMore: true, total: 5 });
    const second = (
      await project.request('GET', `/contacts?limit=2&search=list.example&cursor=${first.cursor}`)
    ).body as Page;
    expect(second.data.map((c) => c.id)).toEqual([ids[2], ids[1]]);
    expect(second).toMatchObject({ hasMore: true, total: 0 });
    const third = (
      await project.request('GET', `/contacts?limit=2&search=list.example&cursor=${second.cursor}`)
    ).body as Page;
    expect(third.data.map((c) => c.id)).toEqual([ids[0]]);
    expect(third).toMatchObject({ hasMore: false, total: 0 });

    // regex characters are matched literally
    const literal = (await project.request('GET', '/contacts?search=b%2Btag')).body as Page;
    expect(literal.data.map((c) => c.email)).toEqual(['a.b+tag@other.example.org']);
    const dot = (await project.request('GET', '/contacts?search=a.b')).body as Page;
    expect(dot.total).toBe(1);
    const all = (await project.request('GET', '/contacts')).body as Page;
    expect(all).toMatchObject({ total: 6, hasMore: false });

    expect((await project.request('GET', '/contacts?limit=0')).status).toBe(422);
    expect((await project.request('GET', '/contacts?limit=101')).status).toBe(200);
  });
});

describe('ContactsApi.upsertRecipient', () => {
  let harness: ContactsHarness;
  beforeAll(async () => {
    harness = await startContacts();
  });
  afterAll(async () => {
    await harness.close();
  });

  it('20 concurrent upserts of the same new email make one contact', async () => {
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        harness.service.api.upsertRecipient({
          projectId: 'p',
          email: 'race@example.com',
          defaultSubscribed: false,
          data: { n: i % 2 === 0 ? 'even' : 'odd' },
          correlationId: `c${i}`,
        }),
      ),
    );
    const ids = new Set(results.map((result) => result.contactId));
    expect(ids.size).toBe(1);
    expect(results.filter((result) => result.isNew)).toHaveLength(1);
    const position = Math.max(...results.map((result) => result.position));
    await Promise.all(harness.service.projections().map((c) => c.waitFor(position, 2000)));
    const views = await harness.platform.views.collection('contacts').find({ projectId: 'p' });
    expect(views).toHaveLength(1);
    expect(views[0]).toMatchObject({ email: 'race@example.com', subscribed: false });
  });

  it('send-style upsert keeps an existing state unless told, and rejects a bad email', async () => {
    const api = harness.service.api;
    const made = await api.upsertRecipient({
      projectId: 'p',
      email: 'Send@Example.com',
      defaultSubscribed: false,
      data: { name: 'Ada', otp: { value: '1234', persistent: false } },
      correlationId: 'c',
    });
    expect(made).toMatchObject({
      isNew: true,
      subscribed: false,
      email: 'send@example.com',
      data: { name: 'Ada' },
    });
    const kept = await api.upsertRecipient({
      projectId: 'p',
      email: 'send@example.com',
      defaultSubscribed: true,
      correlationId: 'c',
    });
    expect(kept).toMatchObject({
      isNew: false,
      subscribed: false,
      position: 0,
      contactId: made.contactId,
    });
    const flipped = await api.upsertRecipient({
      projectId: 'p',
      email: 'send@example.com',
      subscribed: true,
      defaultSubscribed: false,
      correlationId: 'c',
    });
    expect(flipped.subscribed).toBe(true);
    expect(flipped.position).toBeGreaterThan(0);
    await expect(
      api.upsertRecipient({
        projectId: 'p',
        email: 'nope',
        defaultSubscribed: false,
        correlationId: 'c',
      }),
    ).rejects.toMatchObject({ status: 422, code: 'VALIDATION_ERROR' });
  });
});
