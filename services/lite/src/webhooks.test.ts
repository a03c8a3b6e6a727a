/**
 * Webhook endpoints on the whole embedded platform (API reference, "Webhook endpoints"): a track
 * and a send reach a real receiver on loopback as signed `contact.created`, `event.tracked`,
 * `email.sent` and `email.delivered` posts, each verified with the Standard Webhooks library;
 * a loopback URL is refused unless STAMP_ALLOW_PRIVATE_TARGETS allows it.
 */
import { eventually } from '@stamp/testkit/eventually.ts';
import { startWebhookReceiver, type WebhookReceiver } from '@stamp/testkit/webhook-receiver.ts';
import { Webhook } from 'standardwebhooks';

import type { Stamp } from './app.ts';
import { call, startTestStamp, TEST_KEYS } from './testing.ts';

let receiver: WebhookReceiver;
let stamp: Stamp;

const api = (method: string, path: string, body?: unknown) =>
  call(stamp.url, TEST_KEYS.secretKey, method, path, body);

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  stamp = await startTestStamp({ STAMP_ALLOW_PRIVATE_TARGETS: 'true' });
});

afterAll(async () => {
  await stamp.close();
  await receiver.close();
});

it('posts the events of a track and a send, signed, and logs each delivery', async () => {
  const created = await api('POST', '/webhook-endpoints', { url: receiver.url, eventTypes: ['*'] });
  expect(created.status).toBe(201);
  const endpoint = created.body as { id: string; secret: string };

  const tracked = await call(stamp.url, TEST_KEYS.publicKey, 'POST', '/v1/track', {
    event: 'signed-up',
    email: 'ada@example.org',
  });
  expect(tracked.status).toBe(200);
  const sent = await api('POST', '/v1/send', {
    to: 'ada@example.org',
    from: 'hello@sandbox.stamp.localhost',
    subject: 'Welcome',
    body: '<p>Hi</p>',
  });
  expect(sent.status).toBe(200);
  const emailId = (sent.body as { data: { emails: { email: string }[] } }).data.emails[0]?.email;

  const wanted = ['contact.created', 'event.tracked', 'email.sent', 'email.delivered'];
  const webhook = new Webhook(endpoint.secret);
  const posted = await eventually('the four posts', async () => {
    const bodies = receiver.received.map(
      (request) =>
        webhook.verify(request.body, request.headers as Record<string, string>) as {
          type: string;
          data: Record<string, unknown>;
        },
    );
    const types = bodies.map((body) => body.type);
    return wanted.every((type) => types.includes(type)) ? bodies : undefined;
  });
  const byType = new Map(posted.map((body) => [body.type, body.data]));
  expect(byType.get('email.sent')).toMatchObject({ emailId, subject: 'Welcome' });
  expect(byType.get('email.sent')).not.toHaveProperty('html');
  expect(byType.get('email.delivered')).toMatchObject({ emailId, transport: 'outbox' });
  expect(byType.get('event.tracked')).toMatchObject({
    name: 'signed-up',
    email: 'ada@example.org',
  });

  const log = await eventually('every delivery succeeded', async () => {
    const listed = await api('GET', `/webhook-endpoints/${endpoint.id}/deliveries?limit=100`);
    const page = listed.body as { data: { eventType: string; status: string }[]; total: number };
    return page.data.length >= 4 && page.data.every((item) => item.status === 'SUCCEEDED')
      ? page
      : undefined;
  });
  expect(log.data.map((item) => item.eventType)).toEqual(expect.arrayContaining(wanted));
});

it('refuses a loopback URL unless private targets are allowed', async () => {
  const strict = await startTestStamp();
  try {
    for (const url of ['http://127.0.0.1:9/hook', 'http://[::1]/hook', 'http://localhost/x']) {
      const refused = await call(strict.url, TEST_KEYS.secretKey, 'POST', '/webhook-endpoints', {
        url,
        eventTypes: ['*'],
      });
      expect(refused.status).toBe(422);
      expect(refused.body).toMatchObject({ error: { code: 'VALIDATION_ERROR' } });
    }
  } finally {
    await strict.close();
  }
});
