import type { Stamp } from './app.ts';
import { call, startTestStamp, TEST_KEYS } from './testing.ts';

const sk = TEST_KEYS.secretKey;
const pk = TEST_KEYS.publicKey;
const sandboxFrom = 'hello@sandbox.stamp.localhost';

async function outboxCount(stamp: Stamp): Promise<number> {
  const list = await call(stamp.url, sk, 'GET', '/outbox?limit=1');
  return (list.body as { total: number }).total;
}

describe('hostile and edge-case input', () => {
  let stamp: Stamp;

  beforeAll(async () => {
    stamp = await startTestStamp();
  });

  afterAll(async () => {
    await stamp.close();
  });

  it('refuses a template that would render without bounds, quickly and with a 422', async () => {
    const started = Date.now();
    const sent = await call(stamp.url, sk, 'POST', '/v1/send', {
      to: 'bomb@example.org',
      from: sandboxFrom,
      subject: 'loop',
      body: '{% for i in (1..100000000) %}x{% endfor %}',
    });
    expect(sent.status).toBe(422);
    expect(sent.body).toMatchObject({
      error: { code: 'VALIDATION_ERROR', errors: [{ field: 'body' }] },
    });
    expect(Date.now() - started).toBeLessThan(5000);
    expect((await call(stamp.url, undefined, 'GET', '/healthz')).status).toBe(200);
  });

  it('queues nothing when one recipient of a send is refused', async () => {
    await call(stamp.url, sk, 'POST', '/contacts', { email: 'yes@example.org', subscribed: true });
    await call(stamp.url, sk, 'POST', '/contacts', { email: 'no@example.org', subscribed: false });
    const template = await call(stamp.url, sk, 'POST', '/templates', {
      name: 'News',
      type: 'MARKETING',
      from: sandboxFrom,
      subject: 'News',
      body: '<p>News</p>',
    });
    const before = await outboxCount(stamp);
    const sent = await call(stamp.url, sk, 'POST', '/v1/send', {
      to: ['yes@example.org', 'no@example.org'],
      template: (template.body as { id: string }).id,
    });
    expect(sent.status).toBe(400);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await outboxCount(stamp)).toBe(before);
  });

  it('names the recipient cap when a send has too many recipients', async () => {
    const to = Array.from({ length: 51 }, (_, index) => `r${index}@example.org`);
    const sent = await call(stamp.url, sk, 'POST', '/v1/send', {
      to,
      from: sandboxFrom,
      subject: 's',
      body: 'b',
    });
    expect(sent.status).toBe(422);
    expect(sent.body).toMatchObject({
      error: { errors: [{ field: 'to', message: 'At most 50 recipients' }] },
    });
  });

  it('refuses custom headers that Stamp writes itself', async () => {
    const sent = await call(stamp.url, sk, 'POST', '/v1/send', {
      to: 'h@example.org',
      from: sandboxFrom,
      subject: 's',
      body: 'b',
      headers: { Bcc: 'spy@example.org' },
    });
    expect(sent.status).toBe(422);
    expect(sent.body).toMatchObject({ error: { errors: [{ field: 'headers.Bcc' }] } });
  });

  it('answers a malformed path with 400, not 500', async () => {
    const response = await call(stamp.url, sk, 'GET', '/contacts/%E0%A4%A');
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ success: false, error: { code: 'BAD_REQUEST' } });
  });

  it('answers CORS preflights of /v1/track for browsers', async () => {
    const response = await fetch(`${stamp.url}/v1/track`, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://shop.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization,content-type',
      },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    const tracked = await call(
      stamp.url,
      pk,
      'POST',
      '/v1/track',
      { event: 'e', email: 'c@example.org' },
      { origin: 'https://shop.example' },
    );
    expect(tracked.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('lets a public key unsubscribe but never resubscribe a contact', async () => {
    const created = await call(stamp.url, sk, 'POST', '/contacts', {
      email: 'quiet@example.org',
      subscribed: false,
    });
    const id = (created.body as { id: string }).id;
    await call(stamp.url, pk, 'POST', '/v1/track', {
      event: 'visit',
      email: 'quiet@example.org',
      subscribed: true,
    });
    expect((await call(stamp.url, sk, 'GET', `/contacts/${id}`)).body).toMatchObject({
      subscribed: false,
    });
    await call(stamp.url, sk, 'POST', '/v1/track', {
      event: 'visit',
      email: 'quiet@example.org',
      subscribed: true,
    });
    expect((await call(stamp.url, sk, 'GET', `/contacts/${id}`)).body).toMatchObject({
      subscribed: true,
    });
  });

  it('does not tell whether another project exists', async () => {
    const unknown = await call(
      stamp.url,
      sk,
      'POST',
      '/users/@me/projects/00000000-0000-0000-0000-000000000000/regenerate-keys',
    );
    expect(unknown.status).toBe(403);
    expect(unknown.body).toMatchObject({ error: { code: 'PROJECT_ACCESS_DENIED' } });
  });
});

describe('configured bootstrap keys', () => {
  it('seed a new project only: keys regenerated later stay in force after a restart', async () => {
    const first = await startTestStamp();
    const regenerated = await call(
      first.url,
      sk,
      'POST',
      `/users/@me/projects/${first.bootstrap.projectId}/regenerate-keys`,
    );
    const keys = regenerated.body as { secretKey: string };
    await first.close();
    const second = await startTestStamp({ STAMP_DATA_DIR: first.dataDir });
    try {
      expect(second.bootstrap.created).toBe(false);
      expect((await call(second.url, sk, 'GET', '/contacts')).status).toBe(401);
      expect((await call(second.url, keys.secretKey, 'GET', '/contacts')).status).toBe(200);
    } finally {
      await second.close();
    }
  });
});
