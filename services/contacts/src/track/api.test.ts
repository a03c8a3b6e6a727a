import type { ServedRouter } from '@stamp/testkit/http.ts';

import { type ContactsHarness, startContacts } from '../testing.ts';

interface TrackBody {
  success: boolean;
  data: { contact: string; event: string; timestamp: string };
}
interface ErrorBody {
  error: { code: string; errors?: { field: string; code: string }[] };
}

describe('POST /v1/track and /events/track', () => {
  let harness: ContactsHarness;
  let api: ServedRouter;

  beforeAll(async () => {
    harness = await startContacts();
    api = await harness.as('project-t');
  });
  afterAll(async () => {
    await harness.close();
  });

  it('creates a subscribed contact, records the event and answers 200', async () => {
    const response = await api.request('POST', '/v1/track', {
      event: 'signed-up',
      email: 'Track@Example.com',
      data: { plan: 'pro', otp: { value: 'x', persistent: false } },
    });
    expect(response.status).toBe(200);
    const body = response.body as TrackBody;
    expect(body.success).toBe(true);
    expect(Date.parse(body.data.timestamp)).not.toBeNaN();

    const contact = await api.request('GET', `/contacts/${body.data.contact}`);
    expect(contact.body).toMatchObject({
      email: 'track@example.com',
      subscribed: true,
      data: { plan: 'pro' },
    });
    const [event] = await harness.platform.store.readStream(`trackedEvent-${body.data.event}`);
    expect(event).toMatchObject({
      id: body.data.event,
      type: 'EventTracked',
      metadata: { projectId: 'project-t' },
      data: { contactId: body.data.contact, name: 'signed-up', data: { plan: 'pro', otp: 'x' } },
    });

    const again = await api.request('POST', '/events/track', {
      event: 'paid',
      email: 'track@example.com',
    });
    expect(again.status).toBe(200);
    expect((again.body as TrackBody).data.contact).toBe(body.data.contact);
    expect((again.body as TrackBody).data.event).not.toBe(body.data.event);
  });

  it('honours subscribed:false for a new contact', async () => {
    const response = await api.request('POST', '/v1/track', {
      event: 'visited',
      email: 'quiet@example.com',
      subscribed: false,
    });
    const contact = await api.request(
      'GET',
      `/contacts/${(response.body as TrackBody).data.contact}`,
    );
    expect(contact.body).toMatchObject({ subscribed: false });
  });

  it.each([
    'email.open',
    'contact.subscribed',
    'contact.unsubscribed',
    'segment.vip.entry',
    'segment.vip.exit',
  ])('refuses the reserved name %s with 422 reserved_event', async (name) => {
    const response = await api.request('POST', '/v1/track', {
      event: name,
      email: 'r@example.com',
    });
    expect(response.status).toBe(422);
    const body = response.body as ErrorBody & { code: number; message: string };
    expect(body.error.errors).toEqual([
      expect.objectContaining({ field: 'event', code: 'reserved_event' }),
    ]);
    expect(body.code).toBe(422);
  });

  it('refuses a bad email, a missing event and nested data with 422', async () => {
    const bad = await api.request('POST', '/v1/track', { event: 'x', email: 'not an email' });
    expect(bad.status).toBe(422);
    expect((bad.body as ErrorBody).error.errors?.[0]?.field).toBe('email');
    expect((await api.request('POST', '/v1/track', { email: 'a@example.com' })).status).toBe(422);
    expect(
      (await api.request('POST', '/v1/track', { event: 'x'.repeat(256), email: 'a@example.com' }))
        .status,
    ).toBe(422);
    expect(
      (await api.request('POST', '/v1/track', { event: 'x', email: 'a@example.com', data: [1] }))
        .status,
    ).toBe(422);
  });

  it('a send-style upsert (defaultSubscribed false) creates an unsubscribed contact', async () => {
    const result = await harness.service.api.upsertRecipient({
      projectId: 'project-t',
      email: 'sent@example.com',
      defaultSubscribed: false,
      correlationId: 'c',
    });
    expect(result).toMatchObject({ isNew: true, subscribed: false });
    const tracked = await api.request('POST', '/v1/track', {
      event: 'opened-app',
      email: 'sent@example.com',
    });
    expect((tracked.body as TrackBody).data.contact).toBe(result.contactId);
    const contact = await api.request('GET', `/contacts/${result.contactId}`);
    expect(contact.body).toMatchObject({ subscribed: false });
  });
});
