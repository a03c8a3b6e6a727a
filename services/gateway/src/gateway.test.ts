import { checkResponses } from '@stamp/testkit/net.ts';

import { echoedCaller, startTestGateway, TEST_KEYS, type TestGateway } from './testing.ts';

// The echo modules stand in for the services on some of their paths, with answers of their own:
// the OpenAPI document describes the services' answers, not theirs.
checkResponses(undefined);

interface Envelope {
  success: boolean;
  error: { code: string; message: string; statusCode: number; requestId: string };
  timestamp: string;
  code?: number;
  message?: string;
  time?: number;
}

const envelope = (body: unknown): Envelope => body as Envelope;

describe('gateway', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway();
  });
  afterAll(async () => {
    await gateway.close();
  });

  describe('probes and config', () => {
    it('serves /healthz, /readyz and /config without authentication', async () => {
      expect(await gateway.request('GET', '/healthz')).toMatchObject({
        status: 200,
        body: { status: 'ok' },
      });
      gateway.ready.value = false;
      expect(await gateway.request('GET', '/readyz')).toMatchObject({
        status: 503,
        body: { status: 'starting' },
      });
      gateway.ready.value = true;
      expect(await gateway.request('GET', '/readyz')).toMatchObject({
        status: 200,
        body: { status: 'ready' },
      });
      expect(await gateway.request('GET', '/config')).toMatchObject({
        status: 200,
        body: { features: { webhooks: true, billing: false } },
      });
    });
  });

  describe('authentication', () => {
    it('answers 401 MISSING_AUTH without an Authorization header', async () => {
      const response = await gateway.request('GET', '/things/1');
      expect(response.status).toBe(401);
      expect(envelope(response.body)).toMatchObject({
        success: false,
        error: { code: 'MISSING_AUTH', statusCode: 401 },
      });
    });

    it.each([
      ['a malformed header', `Token ${TEST_KEYS.skA}`],
      ['a bearer without key', 'Bearer'],
      ['an unknown key', 'Bearer sk_unknown'],
    ])('answers 401 INVALID_API_KEY for %s', async (_name, authorization) => {
      const response = await gateway.request('GET', '/things/1', { headers: { authorization } });
      expect(response.status).toBe(401);
      expect(envelope(response.body).error.code).toBe('INVALID_API_KEY');
    });

    it('accepts a secret key everywhere and sets the caller', async () => {
      const things = await gateway.request('GET', '/things/7', { key: TEST_KEYS.skA });
      expect(things.status).toBe(200);
      expect(echoedCaller(things.body)).toEqual({
        projectId: 'project-a',
        keyKind: 'secret',
        requestId: things.headers.get('x-request-id'),
      });
      const track = await gateway.request('POST', '/v1/track', { key: TEST_KEYS.skB, body: {} });
      expect(track.status).toBe(200);
      expect(echoedCaller(track.body)).toMatchObject({ projectId: 'project-b', keyKind: 'secret' });
    });

    it('accepts a public key on POST /v1/track only', async () => {
      const track = await gateway.request('POST', '/v1/track', { key: TEST_KEYS.pkA, body: {} });
      expect(track.status).toBe(200);
      expect(echoedCaller(track.body)).toMatchObject({ projectId: 'project-a', keyKind: 'public' });

      for (const [method, path] of [
        ['POST', '/v1/send'],
        ['GET', '/things/1'],
        ['GET', '/v1/track'],
      ] as const) {
        const response = await gateway.request(method, path, {
          key: TEST_KEYS.pkA,
          ...(method === 'POST' ? { body: { to: 'a@b.co' } } : {}),
        });
        expect(response.status).toBe(401);
        const body = envelope(response.body);
        expect(body.error.code).toBe('INVALID_API_KEY');
        expect(body.error.message).toMatch(/secret key/);
      }
      expect(gateway.echo.counts.get('send')).toBeUndefined();
    });
  });

  describe('request ids and the error envelope', () => {
    it('keeps an inbound UUID request id and replaces anything else', async () => {
      const inbound = '0193a5c2-1f2e-7abc-8def-0123456789ab';
      const kept = await gateway.request('GET', '/things/1', {
        key: TEST_KEYS.skA,
        headers: { 'x-request-id': inbound },
      });
      expect(kept.headers.get('x-request-id')).toBe(inbound);
      expect(echoedCaller(kept.body).requestId).toBe(inbound);

      const replaced = await gateway.request('GET', '/things/1', {
        key: TEST_KEYS.skA,
        headers: { 'x-request-id': 'not-a-uuid' },
      });
      const id = replaced.headers.get('x-request-id');
      expect(id).not.toBe('not-a-uuid');
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);

      const error = await gateway.request('GET', '/nowhere', {
        headers: { 'x-request-id': inbound },
      });
      expect(envelope(error.body).error.requestId).toBe(inbound);
    });

    it('answers 404 NOT_FOUND in the envelope for an unknown route', async () => {
      const response = await gateway.request('GET', '/nowhere', { key: TEST_KEYS.skA });
      expect(response.status).toBe(404);
      const body = envelope(response.body);
      expect(body).toMatchObject({
        success: false,
        error: { code: 'NOT_FOUND', statusCode: 404 },
      });
      expect(body.error.requestId).toBe(response.headers.get('x-request-id'));
      expect(new Date(body.timestamp).toISOString()).toBe(body.timestamp);
      expect(body.code).toBeUndefined();
    });

    it('answers 400 BAD_REQUEST for malformed JSON, with the legacy fields on /v1 only', async () => {
      const v1 = await gateway.request('POST', '/v1/send', { key: TEST_KEYS.skA, body: '{"to":' });
      expect(v1.status).toBe(400);
      const v1Body = envelope(v1.body);
      expect(v1Body.error.code).toBe('BAD_REQUEST');
      expect(v1Body.code).toBe(400);
      expect(v1Body.message).toBe(v1Body.error.message);
      expect(typeof v1Body.time).toBe('number');

      const other = await gateway.request('POST', '/things', { key: TEST_KEYS.skA, body: '{x' });
      expect(other.status).toBe(400);
      const otherBody = envelope(other.body);
      expect(otherBody.error.code).toBe('BAD_REQUEST');
      expect(otherBody).not.toHaveProperty('code');
      expect(otherBody).not.toHaveProperty('message');
      expect(otherBody).not.toHaveProperty('time');
    });

    it('answers 422 VALIDATION_ERROR from a route using parse', async () => {
      const response = await gateway.request('GET', '/things?limit=0', { key: TEST_KEYS.skA });
      expect(response.status).toBe(422);
      expect(response.body).toMatchObject({
        error: { code: 'VALIDATION_ERROR', errors: [{ field: 'limit', code: 'too_small' }] },
      });
    });

    it('answers 500 without leaking the error message', async () => {
      const response = await gateway.request('GET', '/boom', { key: TEST_KEYS.skA });
      expect(response.status).toBe(500);
      expect(envelope(response.body).error.code).toBe('INTERNAL_SERVER_ERROR');
      expect(JSON.stringify(response.body)).not.toMatch(/hunter2|postgres/);
    });
  });

  describe('idempotency', () => {
    it('replays the first response for the same key and body, running the handler once', async () => {
      const options = {
        key: TEST_KEYS.skA,
        body: { to: 'ada@example.com', data: { b: 1, a: 2 } },
        headers: { 'idempotency-key': 'send-1' },
      };
      const first = await gateway.request('POST', '/v1/send', options);
      expect(first.status).toBe(201);
      expect(first.headers.get('idempotent-replayed')).toBeNull();
      const count = gateway.echo.counts.get('send');

      const second = await gateway.request('POST', '/v1/send', {
        ...options,
        body: { data: { a: 2, b: 1 }, to: 'ada@example.com' }, // same JSON, other key order
      });
      expect(second.status).toBe(201);
      expect(second.body).toEqual(first.body);
      expect(second.headers.get('idempotent-replayed')).toBe('true');
      expect(gateway.echo.counts.get('send')).toBe(count);

      const record = await gateway.platform.views
        .collection('idempotency')
        .findOne({ _id: 'project-a:send-1' });
      expect(record).toMatchObject({ status: 'done', response: { status: 201 } });
      expect(Date.parse(String(record?.expiresAt)) - Date.now()).toBeGreaterThan(23 * 3600_000);
    });

    it('scopes keys per project', async () => {
      const headers = { 'idempotency-key': 'shared-key' };
      const a = await gateway.request('POST', '/v1/track', {
        key: TEST_KEYS.skA,
        body: {},
        headers,
      });
      const b = await gateway.request('POST', '/v1/track', {
        key: TEST_KEYS.skB,
        body: {},
        headers,
      });
      expect(a.headers.get('idempotent-replayed')).toBeNull();
      expect(b.headers.get('idempotent-replayed')).toBeNull();
      expect(echoedCaller(b.body).projectId).toBe('project-b');
    });

    it('answers 422 IDEMPOTENCY_KEY_REUSED for the same key with another body', async () => {
      const headers = { 'idempotency-key': 'send-2' };
      await gateway.request('POST', '/v1/send', { key: TEST_KEYS.skA, body: { to: 'x' }, headers });
      const count = gateway.echo.counts.get('send');
      const reused = await gateway.request('POST', '/v1/send', {
        key: TEST_KEYS.skA,
        body: { to: 'y' },
        headers,
      });
      expect(reused.status).toBe(422);
      expect(envelope(reused.body).error.code).toBe('IDEMPOTENCY_KEY_REUSED');
      expect(envelope(reused.body).code).toBe(422);
      expect(gateway.echo.counts.get('send')).toBe(count);
    });

    it('answers 409 IDEMPOTENCY_KEY_IN_USE while the first request runs', async () => {
      const options = {
        key: TEST_KEYS.skA,
        body: { to: 'slow@example.com', wait: true },
        headers: { 'idempotency-key': 'send-3' },
      };
      const first = gateway.request('POST', '/v1/send', options);
      const before = gateway.echo.counts.get('send') ?? 0;
      // wait until the first request runs its handler
      for (let i = 0; i < 100 && (gateway.echo.counts.get('send') ?? 0) === before; i += 1) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      const second = await gateway.request('POST', '/v1/send', options);
      expect(second.status).toBe(409);
      expect(envelope(second.body).error.code).toBe('IDEMPOTENCY_KEY_IN_USE');
      gateway.echo.release();
      expect((await first).status).toBe(201);
      const third = await gateway.request('POST', '/v1/send', options);
      expect(third.status).toBe(201);
      expect(third.headers.get('idempotent-replayed')).toBe('true');
      expect(gateway.echo.counts.get('send')).toBe(before + 1);
    });

    it.each([
      ['empty', ''],
      ['too long', 'k'.repeat(256)],
      ['non-printable', 'key\tvalue'],
    ])('answers 400 BAD_REQUEST for an %s key', async (_name, key) => {
      const before = gateway.echo.counts.get('track') ?? 0;
      const response = await gateway.request('POST', '/v1/track', {
        key: TEST_KEYS.skA,
        body: {},
        headers: { 'idempotency-key': key },
      });
      expect(response.status).toBe(400);
      expect(envelope(response.body).error.code).toBe('BAD_REQUEST');
      expect(gateway.echo.counts.get('track') ?? 0).toBe(before);
    });

    it('accepts a 255-character key', async () => {
      const response = await gateway.request('POST', '/v1/track', {
        key: TEST_KEYS.skA,
        body: {},
        headers: { 'idempotency-key': 'k'.repeat(255) },
      });
      expect(response.status).toBe(200);
    });

    it('stores client errors but not 5xx responses, so a retry after a 500 runs again', async () => {
      const headers = { 'idempotency-key': 'track-fail' };
      const options = { key: TEST_KEYS.skA, body: { fail: true }, headers };
      const before = gateway.echo.counts.get('track') ?? 0;
      expect((await gateway.request('POST', '/v1/track', options)).status).toBe(500);
      expect(
        await gateway.platform.views
          .collection('idempotency')
          .findOne({ _id: 'project-a:track-fail' }),
      ).toBeNull();
      const retry = await gateway.request('POST', '/v1/track', options);
      expect(retry.status).toBe(500);
      expect(retry.headers.get('idempotent-replayed')).toBeNull();
      expect(gateway.echo.counts.get('track')).toBe(before + 2);

      const invalid = { key: TEST_KEYS.skA, body: {}, headers: { 'idempotency-key': 'bad-send' } };
      expect((await gateway.request('POST', '/v1/send', invalid)).status).toBe(422);
      const replayed = await gateway.request('POST', '/v1/send', invalid);
      expect(replayed.status).toBe(422);
      expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    });

    it('replaces an expired record', async () => {
      const records = gateway.platform.views.collection('idempotency');
      await records.insertOne({
        _id: 'project-a:old-key',
        projectId: 'project-a',
        key: 'old-key',
        hash: 'something-else',
        status: 'done',
        token: 'old',
        createdAt: '2020-01-01T00:00:00.000Z',
        expiresAt: '2020-01-02T00:00:00.000Z',
        response: { status: 200, body: { stale: true } },
      });
      const response = await gateway.request('POST', '/v1/track', {
        key: TEST_KEYS.skA,
        body: {},
        headers: { 'idempotency-key': 'old-key' },
      });
      expect(response.status).toBe(200);
      expect(response.headers.get('idempotent-replayed')).toBeNull();
      expect(response.body).toMatchObject({ success: true });
    });

    it('removes expired records', async () => {
      const fresh = await startTestGateway();
      const records = fresh.platform.views.collection('idempotency');
      const expired = {
        projectId: 'project-a',
        hash: 'h',
        status: 'done',
        token: 't',
        createdAt: '2020-01-01T00:00:00.000Z',
        expiresAt: '2020-01-02T00:00:00.000Z',
        response: { status: 200, body: {} },
      };
      await records.insertOne({ _id: 'project-a:gone-1', key: 'gone-1', ...expired });
      await records.insertOne({ _id: 'project-b:gone-2', key: 'gone-2', ...expired });
      // a gateway prunes on its first keyed request
      try {
        await fresh.request('POST', '/v1/track', {
          key: TEST_KEYS.skA,
          body: {},
          headers: { 'idempotency-key': 'prune-trigger' },
        });
        await new Promise((resolve) => setTimeout(resolve, 50));
        expect(await records.findOne({ _id: 'project-a:gone-1' })).toBeNull();
        expect(await records.findOne({ _id: 'project-b:gone-2' })).toBeNull();
      } finally {
        await fresh.close();
      }
    });

    it('ignores the header on other routes', async () => {
      const headers = { 'idempotency-key': 'things-1' };
      const first = await gateway.request('POST', '/things', {
        key: TEST_KEYS.skA,
        body: {},
        headers,
      });
      const second = await gateway.request('POST', '/things', {
        key: TEST_KEYS.skA,
        body: {},
        headers,
      });
      expect((second.body as { count: number }).count).toBe(
        (first.body as { count: number }).count + 1,
      );
    });
  });
});

describe('gateway limits', () => {
  it('answers 413 PAYLOAD_TOO_LARGE above the body limit', async () => {
    const gateway = await startTestGateway({ bodyLimitBytes: 1024 });
    try {
      const small = await gateway.request('POST', '/v1/send', {
        key: TEST_KEYS.skA,
        body: { to: 'x'.repeat(500) },
      });
      expect(small.status).toBe(201);
      const large = await gateway.request('POST', '/v1/send', {
        key: TEST_KEYS.skA,
        body: { to: 'x'.repeat(2000) },
      });
      expect(large.status).toBe(413);
      expect(envelope(large.body).error.code).toBe('PAYLOAD_TOO_LARGE');
    } finally {
      await gateway.close();
    }
  });

  it('rate-limits per project with 429, Retry-After and RateLimit headers', async () => {
    const gateway = await startTestGateway({ rateLimit: { limit: 3, windowMs: 60_000 } });
    try {
      for (let i = 0; i < 3; i += 1) {
        const ok = await gateway.request('GET', '/things/1', { key: TEST_KEYS.skA });
        expect(ok.status).toBe(200);
        expect(ok.headers.get('ratelimit')).toMatch(new RegExp(`r=${2 - i}; t=\\d+`));
        expect(ok.headers.get('ratelimit-policy')).toMatch(/q=3; w=60/);
      }
      const limited = await gateway.request('GET', '/things/1', { key: TEST_KEYS.skA });
      expect(limited.status).toBe(429);
      expect(envelope(limited.body)).toMatchObject({
        success: false,
        error: { code: 'RATE_LIMIT_EXCEEDED', statusCode: 429 },
      });
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(limited.headers.get('ratelimit')).toMatch(/r=0/);

      // the public key of the same project shares its budget; /v1 responses carry legacy fields
      const sameProject = await gateway.request('POST', '/v1/track', {
        key: TEST_KEYS.pkA,
        body: {},
      });
      expect(sameProject.status).toBe(429);
      expect(envelope(sameProject.body).code).toBe(429);

      // another project is not affected
      const other = await gateway.request('GET', '/things/1', { key: TEST_KEYS.skB });
      expect(other.status).toBe(200);
      // probes are not limited
      expect((await gateway.request('GET', '/healthz')).status).toBe(200);
    } finally {
      await gateway.close();
    }
  });
});

describe('listen', () => {
  it('lets in-flight requests finish on close, then refuses new connections', async () => {
    const gateway = await startTestGateway();
    const inFlight = gateway.request('POST', '/v1/send', {
      key: TEST_KEYS.skA,
      body: { to: 'drain@example.com', wait: true },
    });
    for (let i = 0; i < 100 && gateway.echo.counts.get('send') === undefined; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    let closed = false;
    const closing = gateway.server.close().then(() => {
      closed = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(closed).toBe(false);
    await expect(fetch(`${gateway.url}/healthz`)).rejects.toThrow();
    gateway.echo.release();
    expect((await inFlight).status).toBe(201);
    await closing;
    expect(closed).toBe(true);
    await gateway.close();
  });
});
