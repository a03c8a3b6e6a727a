import { CAMPAIGNS_VIEW, SEGMENTS_VIEW, WORKFLOWS_VIEW } from '@stamp/contracts';
import type { ServedRouter } from '@stamp/testkit/http.ts';

import { type ContactsHarness, startContacts } from '../testing.ts';
import { inferType } from './infer.ts';

interface Field {
  name: string;
  path: string;
  standard: boolean;
  type: string;
  types?: Record<string, number>;
  count: number;
  coverage: number;
}
interface Fields {
  total: number;
  fields: Field[];
}
interface ErrorBody {
  error: { code: string; statusCode: number; errors?: { field: string; code: string }[] };
}

describe('inferType', () => {
  it('infers number, boolean, date for ISO strings, else string', () => {
    expect(inferType(3)).toBe('number');
    expect(inferType(false)).toBe('boolean');
    expect(inferType('2026-11-22')).toBe('date');
    expect(inferType('2026-11-22T10:15:00.123Z')).toBe('date');
    expect(inferType('2026-13-45')).toBe('string');
    expect(inferType('22/11/2026')).toBe('string');
    expect(inferType('pro')).toBe('string');
  });
});

describe('contact fields and lookup API', () => {
  let harness: ContactsHarness;
  let api: ServedRouter;
  let other: ServedRouter;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    harness = await startContacts();
    api = await harness.as('project-a');
    other = await harness.as('project-b');
    const people: [string, Record<string, string | number | boolean>][] = [
      ['ada@example.com', { plan: 'pro', seats: 3, trialEndsAt: '2026-12-01' }],
      ['bob@example.com', { plan: 'free', seats: 1 }],
      ['cy@example.com', { plan: 'pro', beta: true }],
      ['di@example.com', {}],
    ];
    for (const [email, data] of people) {
      const created = await api.request('POST', '/contacts', { email, data });
      expect(created.status).toBe(201);
      ids[email] = (created.body as { id: string }).id;
    }
    await other.request('POST', '/contacts', { email: 'eve@example.com', data: { secret: 'x' } });
  });
  afterAll(async () => {
    await harness.close();
  });

  it('GET /contacts/fields lists standard and custom fields with types and coverage', async () => {
    const { status, body } = await api.request('GET', '/contacts/fields');
    expect(status).toBe(200);
    const fields = body as Fields;
    expect(fields.total).toBe(4);
    expect(
      fields.fields.slice(0, 4).map((field) => [field.name, field.type, field.coverage]),
    ).toEqual([
      ['email', 'string', 100],
      ['subscribed', 'boolean', 100],
      ['createdAt', 'date', 100],
      ['updatedAt', 'date', 100],
    ]);
    const custom = Object.fromEntries(
      fields.fields.filter((field) => !field.standard).map((field) => [field.name, field]),
    );
    expect(Object.keys(custom).sort()).toEqual(['beta', 'plan', 'seats', 'trialEndsAt']);
    expect(custom.plan).toMatchObject({
      path: 'data.plan',
      type: 'string',
      count: 3,
      coverage: 75,
    });
    expect(custom.seats).toMatchObject({ type: 'number', count: 2, coverage: 50 });
    expect(custom.beta).toMatchObject({ type: 'boolean', count: 1, coverage: 25 });
    expect(custom.trialEndsAt).toMatchObject({ type: 'date', count: 1 });
    expect(custom.secret).toBeUndefined();
  });

  it('follows data changes: a type change, a removed key, a deleted contact', async () => {
    const bob = ids['bob@example.com']!;
    await api.request('PATCH', `/contacts/${bob}`, { data: { seats: 'many', plan: null } });
    let fields = (await api.request('GET', '/contacts/fields')).body as Fields;
    const seats = fields.fields.find((field) => field.name === 'seats');
    expect(seats).toMatchObject({ count: 2, types: { number: 1, string: 1 } });
    expect(fields.fields.find((field) => field.name === 'plan')).toMatchObject({ count: 2 });

    const created = await api.request('POST', '/contacts', {
      email: 'temp@example.com',
      data: { plan: 'team' },
    });
    const temp = (created.body as { id: string }).id;
    fields = (await api.request('GET', '/contacts/fields')).body as Fields;
    expect(fields.total).toBe(5);
    expect(fields.fields.find((field) => field.name === 'plan')).toMatchObject({ count: 3 });
    await api.request('DELETE', `/contacts/${temp}`);
    fields = (await api.request('GET', '/contacts/fields')).body as Fields;
    expect(fields.total).toBe(4);
    expect(fields.fields.find((field) => field.name === 'plan')).toMatchObject({ count: 2 });
    await api.request('PATCH', `/contacts/${bob}`, { data: { seats: 1, plan: 'free' } });
  });

  it('GET /contacts/fields/:field/values pages through distinct values', async () => {
    const first = await api.request('GET', '/contacts/fields/plan/values?limit=1');
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ data: ['free'], hasMore: true, total: 2 });
    const cursor = (first.body as { cursor: string }).cursor;
    const second = await api.request(
      'GET',
      `/contacts/fields/plan/values?limit=1&cursor=${cursor}`,
    );
    expect(second.body).toMatchObject({ data: ['pro'], hasMore: false, total: 0 });
    const seats = await api.request('GET', '/contacts/fields/seats/values');
    expect(seats.body).toMatchObject({ data: [1, 3] });

    const unknown = await api.request('GET', '/contacts/fields/nothing/values');
    expect(unknown.status).toBe(404);
    expect((unknown.body as ErrorBody).error.code).toBe('RESOURCE_NOT_FOUND');
    expect((await other.request('GET', '/contacts/fields/plan/values')).status).toBe(404);
    const badCursor = await api.request('GET', '/contacts/fields/plan/values?cursor=%%%');
    expect(badCursor.status).toBe(422);
    const badLimit = await api.request('GET', '/contacts/fields/plan/values?limit=0');
    expect(badLimit.status).toBe(422);
    const dotted = await api.request('GET', '/contacts/fields/a.b/values');
    expect(dotted.status).toBe(422);
    expect((dotted.body as ErrorBody).error.errors?.[0]?.field).toBe('field');
  });

  it('GET /contacts/fields/:field/usage reads segments, campaigns and workflows', async () => {
    const empty = await api.request('GET', '/contacts/fields/plan/usage');
    expect(empty.body).toEqual({ segments: [], campaigns: [], workflows: [] });

    const views = harness.platform.views;
    const condition = (field: string): unknown => ({
      logic: 'AND',
      groups: [{ filters: [{ field, operator: 'equals', value: 'pro' }] }],
    });
    await views.collection(SEGMENTS_VIEW).insertOne({
      _id: 's1',
      projectId: 'project-a',
      name: 'Pro users',
      condition: condition('data.plan'),
    });
    await views.collection(SEGMENTS_VIEW).insertOne({
      _id: 's2',
      projectId: 'project-b',
      name: 'Other project',
      condition: condition('data.plan'),
    });
    await views.collection(CAMPAIGNS_VIEW).insertOne({
      _id: 'c1',
      projectId: 'project-a',
      name: 'Upsell',
      status: 'DRAFT',
      audienceFilter: condition('data.seats'),
    });
    await views.collection(WORKFLOWS_VIEW).insertOne({
      _id: 'w1',
      projectId: 'project-a',
      name: 'Onboarding',
      steps: [{ id: 'st1', type: 'CONDITION', config: { field: 'data.plan', operator: 'equals' } }],
    });
    await views.collection(WORKFLOWS_VIEW).insertOne({
      _id: 'w2',
      projectId: 'project-a',
      name: 'Tagger',
      steps: [{ id: 'st2', type: 'UPDATE_CONTACT', config: { updates: { plan: 'pro' } } }],
    });
    const usage = await api.request('GET', '/contacts/fields/plan/usage');
    expect(usage.body).toEqual({
      segments: [{ id: 's1', name: 'Pro users' }],
      campaigns: [],
      workflows: [
        { id: 'w1', name: 'Onboarding' },
        { id: 'w2', name: 'Tagger' },
      ],
    });
    const seats = await api.request('GET', '/contacts/fields/seats/usage');
    expect(seats.body).toMatchObject({ campaigns: [{ id: 'c1', name: 'Upsell' }] });
  });

  it('DELETE /contacts/fields/:field removes the key from every contact, as events', async () => {
    const standard = await api.request('DELETE', '/contacts/fields/email');
    expect(standard.status).toBe(422);
    expect((await api.request('DELETE', '/contacts/fields/nothing')).status).toBe(404);

    const deleted = await api.request('DELETE', '/contacts/fields/plan');
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ success: true, field: 'plan', affected: 3 });
    const ada = await api.request('GET', `/contacts/${ids['ada@example.com']!}`);
    expect((ada.body as { data: Record<string, unknown> }).data).toEqual({
      seats: 3,
      trialEndsAt: '2026-12-01',
    });
    const fields = (await api.request('GET', '/contacts/fields')).body as Fields;
    expect(fields.fields.find((field) => field.name === 'plan')).toBeUndefined();
    const events = await harness.platform.store.readStream(`contact-${ids['ada@example.com']!}`);
    expect(events.at(-1)).toMatchObject({
      type: 'ContactDataChanged',
      data: { set: {}, unset: ['plan'] },
    });
    // Another project's field of the same name is untouched.
    const eve = await other.request('GET', '/contacts/fields');
    expect((eve.body as Fields).fields.some((field) => field.name === 'secret')).toBe(true);
  });

  it('POST /contacts/lookup tells which emails exist, up to 500', async () => {
    const { status, body } = await api.request('POST', '/contacts/lookup', {
      emails: [' ADA@example.com', 'nobody@example.com', 'not-an-email', 'eve@example.com'],
    });
    expect(status).toBe(200);
    expect(body).toEqual({
      data: [
        { email: 'ada@example.com', exists: true, id: ids['ada@example.com'] },
        { email: 'nobody@example.com', exists: false, id: null },
        { email: 'not-an-email', exists: false, id: null },
        { email: 'eve@example.com', exists: false, id: null },
      ],
      found: 1,
    });
    const tooMany = await api.request('POST', '/contacts/lookup', {
      emails: Array.from({ length: 501 }, (_, index) => `u${index}@example.com`),
    });
    expect(tooMany.status).toBe(422);
    expect((tooMany.body as ErrorBody).error.errors?.[0]?.field).toBe('emails');
    expect((await api.request('POST', '/contacts/lookup', { emails: [] })).status).toBe(422);
    expect((await api.request('POST', '/contacts/lookup', {})).status).toBe(422);
  });
});
