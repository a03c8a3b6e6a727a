/**
 * Webhook endpoints over real sockets (API reference, "Webhook endpoints"): the routes, and
 * deliveries to a real HTTP receiver on loopback whose signatures are checked with the Standard
 * Webhooks library, including failed first attempts, retries running out, a manual retry, the
 * event-type filter, erasure and the disabling of an endpoint that keeps failing.
 */
import { randomBytes } from 'node:crypto';

import { type EmbeddedPlatform, newId } from '@stamp/platform';
import { eventually } from '@stamp/testkit/eventually.ts';
import type { ServedRouter } from '@stamp/testkit/http.ts';
import { startWebhookReceiver, type WebhookReceiver } from '@stamp/testkit/webhook-receiver.ts';
import { Webhook } from 'standardwebhooks';

import { type ActivityBench, startActivityBench } from '../testing.ts';

let platform: EmbeddedPlatform;
let served: ServedRouter;
let receiver: WebhookReceiver;
/** Added to the delivery worker's clock: the test moves it days ahead. */
let clockOffset = 0;

interface Endpoint {
  id: string;
  url: string;
  eventTypes: string[];
  secret: string;
  enabled: boolean;
  createdAt: string;
  description?: string;
  disabledReason?: string;
}

interface Delivery {
  id: string;
  eventType: string;
  status: string;
  attempts: number;
  lastStatusCode?: number;
  lastLatencyMs?: number;
  nextAttemptAt?: string;
  createdAt: string;
  payload?: { type: string; timestamp: string; data: Record<string, unknown> };
  log?: { attemptedAt: string; statusCode?: number; latencyMs: number; error?: string }[];
}

let bench: ActivityBench;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  bench = await startActivityBench(
    {
      deliveries: {
        intervalMs: 20,
        retryDelaysMs: [100, 100],
        now: () => Date.now() + clockOffset,
      },
    },
    true,
  );
  ({ platform, served } = bench);
});

afterAll(async () => {
  await bench.close();
  await receiver.close();
});

beforeEach(() => {
  receiver.respond = () => 200;
});

/** Creates an endpoint of the receiver for `eventTypes`. */
async function createEndpoint(eventTypes: string[], path = '/hooks'): Promise<Endpoint> {
  const created = await served.request('POST', '/webhook-endpoints', {
    url: receiver.url.replace('/hooks', path),
    eventTypes,
    description: 'test',
  });
  expect(created.status).toBe(201);
  return created.body as Endpoint;
}

/** Appends an EventTracked for project p1 (or `projectId`) and returns its id. */
async function track(name: string, projectId = 'p1'): Promise<string> {
  const id = newId();
  await platform.store.append([
    {
      streamId: `trackedEvent-${id}`,
      expectedRevision: 'no_stream',
      events: [
        {
          id,
          type: 'EventTracked',
          data: { name, contactId: 'c1', email: 'ada@example.org', data: { plan: 'pro' } },
          metadata: { projectId, correlationId: 'test', subjectId: 'c1' },
        },
      ],
    },
  ]);
  return id;
}

const received = (path: string) => receiver.received.filter((request) => request.path === path);

async function deliveriesOf(endpoint: Endpoint, query = ''): Promise<Delivery[]> {
  const listed = await served.request(
    'GET',
    `/webhook-endpoints/${endpoint.id}/deliveries${query}`,
  );
  expect(listed.status).toBe(200);
  return (listed.body as { data: Delivery[] }).data;
}

it('creates, lists, reads, changes and deletes endpoints', async () => {
  const endpoint = await createEndpoint(['email.sent', 'email.sent', 'contact.created'], '/crud');
  expect(endpoint).toMatchObject({
    url: receiver.url.replace('/hooks', '/crud'),
    eventTypes: ['email.sent', 'contact.created'],
    description: 'test',
    enabled: true,
  });
  expect(endpoint.secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
  const listed = await served.request('GET', '/webhook-endpoints');
  expect((listed.body as Endpoint[]).map((item) => item.id)).toContain(endpoint.id);

  const patched = await served.request('PATCH', `/webhook-endpoints/${endpoint.id}`, {
    eventTypes: ['*', 'email.sent'],
    enabled: false,
    description: '',
  });
  expect(patched.status).toBe(200);
  expect(patched.body).toMatchObject({
    eventTypes: ['*'],
    enabled: false,
    secret: endpoint.secret,
  });
  expect(patched.body).not.toHaveProperty('description');

  for (const body of [
    {},
    { url: 'ftp://example.com/x', eventTypes: ['*'] },
    { url: 'not a url', eventTypes: ['*'] },
    { url: receiver.url, eventTypes: [] },
    { url: receiver.url, eventTypes: ['email.lost'] },
    { url: receiver.url, eventTypes: '*' },
    { url: receiver.url, eventTypes: ['*'], enabled: 'yes' },
  ]) {
    const refused = await served.request('POST', '/webhook-endpoints', body);
    expect(refused.status).toBe(422);
  }
  expect(
    (await served.request('PATCH', `/webhook-endpoints/${endpoint.id}`, { url: 5 })).status,
  ).toBe(422);

  expect((await served.request('DELETE', `/webhook-endpoints/${endpoint.id}`)).status).toBe(204);
  for (const [method, path] of [
    ['GET', `/webhook-endpoints/${endpoint.id}`],
    ['PATCH', `/webhook-endpoints/${endpoint.id}`],
    ['DELETE', `/webhook-endpoints/${endpoint.id}`],
    ['GET', `/webhook-endpoints/${endpoint.id}/deliveries`],
    ['GET', `/webhook-endpoints/${newId()}`],
  ] as const) {
    const gone = await served.request(
      method,
      path,
      method === 'PATCH' ? { enabled: true } : undefined,
    );
    expect(gone.status).toBe(404);
    expect(gone.body).toMatchObject({ error: { code: 'RESOURCE_NOT_FOUND' } });
  }
});

it('delivers signed events, retrying failed attempts with the same webhook-id', async () => {
  const endpoint = await createEndpoint(['event.tracked'], '/retried');
  receiver.respond = (_request, previous) => (previous === 0 ? 503 : previous === 1 ? 500 : 204);
  const eventId = await track('signed-up');

  const attempts = await eventually('three attempts', async () => {
    const got = received('/retried');
    return got.length >= 3 ? got : undefined;
  });
  expect(attempts).toHaveLength(3);
  const webhook = new Webhook(endpoint.secret);
  const ids = new Set<string>();
  for (const attempt of attempts) {
    const headers = attempt.headers as Record<string, string>;
    ids.add(headers['webhook-id'] ?? '');
    expect(webhook.verify(attempt.body, headers)).toMatchObject({ type: 'event.tracked' });
    expect(() =>
      new Webhook(`whsec_${randomBytes(24).toString('base64')}`).verify(attempt.body, headers),
    ).toThrow();
  }
  expect(ids.size).toBe(1);
  expect(JSON.parse(attempts[0]?.body ?? '')).toEqual({
    type: 'event.tracked',
    timestamp: expect.any(String) as string,
    data: {
      eventId,
      trackedEventId: eventId,
      name: 'signed-up',
      contactId: 'c1',
      email: 'ada@example.org',
      data: { plan: 'pro' },
    },
  });

  const [delivery] = await eventually('the delivery succeeded', async () => {
    const found = await deliveriesOf(endpoint);
    return found[0]?.status === 'SUCCEEDED' ? found : undefined;
  });
  expect(delivery).toMatchObject({ eventType: 'event.tracked', attempts: 3, lastStatusCode: 204 });
  expect(delivery?.id).toBe([...ids][0]);
  expect(delivery?.lastLatencyMs).toEqual(expect.any(Number));
  expect(delivery).not.toHaveProperty('nextAttemptAt');
  const one = await served.request(
    'GET',
    `/webhook-endpoints/${endpoint.id}/deliveries/${delivery?.id ?? ''}`,
  );
  const detail = one.body as Delivery;
  expect(detail.log?.map((attempt) => attempt.statusCode)).toEqual([503, 500, 204]);
  expect(detail.payload?.data).toMatchObject({ eventId, name: 'signed-up' });
  // A redelivered event (the same id) is not delivered twice.
  expect(await deliveriesOf(endpoint, '?status=PENDING')).toEqual([]);
});

it('posts only the types an endpoint wants, and nothing of other projects', async () => {
  const wanted = await createEndpoint(['contact.created'], '/typed');
  await track('ignored');
  await track('elsewhere', 'p2');
  const contactId = newId();
  await platform.store.append([
    {
      streamId: `contact-${contactId}`,
      expectedRevision: 'no_stream',
      events: [
        {
          type: 'ContactCreated',
          data: { email: 'bo@example.org', subscribed: true, data: {} },
          metadata: { projectId: 'p1', correlationId: 'test', subjectId: contactId },
        },
      ],
    },
  ]);
  const [only] = await eventually('the contact.created delivery', async () => {
    const got = received('/typed');
    return got.length > 0 ? got : undefined;
  });
  expect(JSON.parse(only?.body ?? '')).toMatchObject({
    type: 'contact.created',
    data: { contactId, email: 'bo@example.org', subscribed: true },
  });
  const delivered = await eventually('the log', async () => {
    const found = await deliveriesOf(wanted);
    return found[0]?.status === 'SUCCEEDED' ? found : undefined;
  });
  expect(delivered.map((delivery) => delivery.eventType)).toEqual(['contact.created']);

  // Erasure: the contact's deliveries go; the deletion notice is delivered.
  await platform.store.append([
    {
      streamId: `contact-${contactId}`,
      expectedRevision: 0,
      events: [
        {
          type: 'ContactDeleted',
          data: {},
          metadata: { projectId: 'p1', correlationId: 'test', subjectId: contactId },
        },
      ],
    },
  ]);
  await eventually('the erased delivery gone', async () =>
    (await deliveriesOf(wanted)).length === 0 ? true : undefined,
  );
});

it('fails a delivery once its retries ran out; a manual retry makes one more attempt', async () => {
  const endpoint = await createEndpoint(['event.tracked'], '/failing');
  receiver.respond = () => 500;
  await track('doomed');
  const [failed] = await eventually('the delivery failed', async () => {
    const found = await deliveriesOf(endpoint);
    return found[0]?.status === 'FAILED' ? found : undefined;
  });
  expect(failed).toMatchObject({ attempts: 3, lastStatusCode: 500 });
  expect(received('/failing')).toHaveLength(3);

  receiver.respond = () => 200;
  const retry = `/webhook-endpoints/${endpoint.id}/deliveries/${failed?.id ?? ''}/retry`;
  const retried = await served.request('POST', retry);
  expect(retried.status).toBe(202);
  expect(retried.body).toMatchObject({ status: 'PENDING' });
  await eventually('the manual retry', async () => {
    const found = await deliveriesOf(endpoint);
    return found[0]?.status === 'SUCCEEDED' && found[0].attempts === 4 ? true : undefined;
  });
  expect(received('/failing')).toHaveLength(4);
  const unknown = await served.request(
    'POST',
    `/webhook-endpoints/${endpoint.id}/deliveries/${newId()}/retry`,
  );
  expect(unknown.status).toBe(404);

  // Deleting the endpoint deletes its log.
  const log = platform.views.collection('webhookDeliveries');
  expect(await log.countDocuments({ endpointId: endpoint.id })).toBe(1);
  expect((await served.request('DELETE', `/webhook-endpoints/${endpoint.id}`)).status).toBe(204);
  expect(await log.countDocuments({ endpointId: endpoint.id })).toBe(0);
});

it('disables an endpoint that failed for days; its waiting deliveries fail', async () => {
  const endpoint = await createEndpoint(['event.tracked'], '/dead');
  receiver.respond = () => 500;
  receiver.down = false;
  await track('first');
  await eventually('a first failure', async () =>
    received('/dead').length > 0 ? true : undefined,
  );
  clockOffset = 6 * 24 * 3_600_000;
  await track('second');
  const disabled = await eventually('the endpoint disabled', async () => {
    const found = (await served.request('GET', `/webhook-endpoints/${endpoint.id}`))
      .body as Endpoint;
    return found.enabled ? undefined : found;
  });
  expect(disabled.disabledReason).toMatch(/^every delivery failed since /);
  await eventually('every delivery failed', async () => {
    const found = await deliveriesOf(endpoint);
    return found.length === 2 && found.every((delivery) => delivery.status === 'FAILED')
      ? true
      : undefined;
  });
  const [one] = await deliveriesOf(endpoint);
  const refused = await served.request(
    'POST',
    `/webhook-endpoints/${endpoint.id}/deliveries/${one?.id ?? ''}/retry`,
  );
  expect(refused.status).toBe(409);
  // Enabled again by its owner: a retry is accepted.
  await served.request('PATCH', `/webhook-endpoints/${endpoint.id}`, { enabled: true });
  receiver.respond = () => 200;
  const accepted = await served.request(
    'POST',
    `/webhook-endpoints/${endpoint.id}/deliveries/${one?.id ?? ''}/retry`,
  );
  expect(accepted.status).toBe(202);
  clockOffset = 0;
});

it('forgets finished deliveries after 30 days', async () => {
  const endpoint = await createEndpoint(['event.tracked'], '/old');
  await track('kept for a while');
  await eventually('the delivery succeeded', async () => {
    const found = await deliveriesOf(endpoint);
    return found[0]?.status === 'SUCCEEDED' ? true : undefined;
  });
  clockOffset = 31 * 24 * 3_600_000;
  try {
    await eventually('the delivery forgotten', async () =>
      (await deliveriesOf(endpoint)).length === 0 ? true : undefined,
    );
  } finally {
    clockOffset = 0;
  }
});
