import { rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';

import type { Stamp } from './app.ts';
import { call, startTestStamp, TEST_KEYS } from './testing.ts';

const sk = TEST_KEYS.secretKey;

/** What a raw connection saw: the bytes answered, and whether and when the server closed it. */
interface RawOutcome {
  answer: string;
  closed: boolean;
  /** ms from the first byte sent to the close (or to the end of the wait). */
  elapsed: number;
}

/**
 * Opens a TCP connection to `url`, sends `head` (request line and headers, without the blank
 * line) and the start of a body, never the rest, and waits up to `waitMs` for the server to
 * close the connection.
 */
function partialRequest(url: string, head: string[], bodyStart: string, waitMs: number) {
  const { hostname, port } = new URL(url);
  return new Promise<RawOutcome>((resolve) => {
    const started = Date.now();
    let answer = '';
    const socket: Socket = connect(Number(port), hostname, () => {
      socket.write(`${head.join('\r\n')}\r\n\r\n${bodyStart}`);
    });
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ answer, closed: false, elapsed: Date.now() - started });
    }, waitMs);
    socket.on('data', (chunk: Buffer) => {
      answer += chunk.toString('utf8');
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ answer, closed: true, elapsed: Date.now() - started });
    });
  });
}

/** Sends `requests` one after another on one connection; the answers as one string. */
function onOneConnection(url: string, requests: string[], waitMs: number): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    let answer = '';
    const socket = connect(Number(port), hostname, () => {
      for (const request of requests) socket.write(request);
    });
    socket.on('data', (chunk: Buffer) => {
      answer += chunk.toString('utf8');
    });
    socket.on('error', () => undefined);
    setTimeout(() => {
      socket.destroy();
      resolve(answer);
    }, waitMs);
  });
}

/** The JSON envelope at the end of a raw answer. */
function envelopeOf(answer: string): { error?: { code?: string; statusCode?: number } } {
  const body = answer.slice(answer.indexOf('\r\n\r\n') + 4);
  return JSON.parse(body) as { error?: { code?: string; statusCode?: number } };
}

const post = (path: string, headers: string[]): string[] => [
  `POST ${path} HTTP/1.1`,
  'Host: stamp.test',
  'Content-Type: application/json',
  ...headers,
];

describe('request bodies', () => {
  let stamp: Stamp & { dataDir: string };

  beforeAll(async () => {
    stamp = await startTestStamp({ STAMP_BODY_TIMEOUT_MS: '600' });
  });
  afterAll(async () => {
    await stamp.close();
    rmSync(stamp.dataDir, { recursive: true, force: true });
  });

  describe('of requests without a valid key', () => {
    it.each([
      ['a wrong key', ['Authorization: Bearer sk_wrongwrongwrongwrongwrong0'], 'INVALID_API_KEY'],
      ['no key', [], 'MISSING_AUTH'],
    ])(
      'are answered 401 without being read (%s), and the connection closed',
      async (_, auth, code) => {
        const outcome = await partialRequest(
          stamp.url,
          post('/v1/send', [...auth, 'Content-Length: 40000000']),
          `{"to":"a@example.org","body":"${'x'.repeat(1000)}`,
          3000,
        );
        expect(outcome.answer).toMatch(/^HTTP\/1\.1 401 /);
        expect(outcome.answer).toMatch(/\r\nconnection: close\r\n/i);
        expect(envelopeOf(outcome.answer).error).toMatchObject({ code, statusCode: 401 });
        expect(outcome.closed).toBe(true);
        expect(outcome.elapsed).toBeLessThan(1000);
      },
    );

    it('are answered 401 and closed when chunked without an end', async () => {
      const outcome = await partialRequest(
        stamp.url,
        post('/contacts', ['Authorization: Bearer nope', 'Transfer-Encoding: chunked']),
        '10\r\n{"email":"a@b.c"\r\n',
        3000,
      );
      expect(outcome.answer).toMatch(/^HTTP\/1\.1 401 /);
      expect(outcome.closed).toBe(true);
    });

    it('keep the connection when the small body is drained', async () => {
      const body = '{"email":"kept@example.org"}';
      const request = (key: string): string =>
        [
          ...post('/contacts', [`Authorization: Bearer ${key}`, `Content-Length: ${body.length}`]),
          '',
          body,
        ].join('\r\n');
      const answer = await onOneConnection(
        stamp.url,
        [request('sk_wrongwrongwrongwrongwrong0'), request(sk)],
        1000,
      );
      expect(answer).toMatch(/^HTTP\/1\.1 401 /);
      expect(answer).toMatch(/HTTP\/1\.1 201 /);
    });
  });

  it('waits for the rest of a small refused body only briefly, whatever the body timeout', async () => {
    const patient = await startTestStamp();
    try {
      const outcome = await partialRequest(
        patient.url,
        post('/contacts', ['Authorization: Bearer nope', 'Content-Length: 100']),
        '{"email":',
        8000,
      );
      expect(outcome.answer).toMatch(/^HTTP\/1\.1 401 /);
      expect(outcome.closed).toBe(true);
      expect(outcome.elapsed).toBeGreaterThanOrEqual(1500);
      expect(outcome.elapsed).toBeLessThan(4000);
    } finally {
      await patient.close();
      rmSync(patient.dataDir, { recursive: true, force: true });
    }
  });

  it('answers 413 to a body above the limit without reading it', async () => {
    const outcome = await partialRequest(
      stamp.url,
      post('/v1/send', [`Authorization: Bearer ${sk}`, 'Content-Length: 50000000']),
      '{"to":',
      3000,
    );
    expect(outcome.answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(envelopeOf(outcome.answer).error).toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
    expect(outcome.closed).toBe(true);
  });

  it('answers 413 to a chunked body as soon as it passes the limit', async () => {
    // The default body timeout: 46 MiB need not cross a busy loopback within the 600 ms above.
    const patient = await startTestStamp();
    const { hostname, port } = new URL(patient.url);
    const outcome = await new Promise<RawOutcome>((resolve) => {
      const started = Date.now();
      let answer = '';
      const socket = connect(Number(port), hostname, () => {
        socket.write(
          `${post('/v1/send', [`Authorization: Bearer ${sk}`, 'Transfer-Encoding: chunked']).join('\r\n')}\r\n\r\n`,
        );
        // One chunk announced as 64 MiB; 46 MiB of it sent, then nothing.
        socket.write(`4000000\r\n["${'x'.repeat(46 * 1024 * 1024)}`);
      });
      const timer = setTimeout(() => {
        socket.destroy();
        resolve({ answer, closed: false, elapsed: Date.now() - started });
      }, 4000);
      socket.on('data', (chunk: Buffer) => {
        answer += chunk.toString('utf8');
      });
      socket.on('error', () => undefined);
      socket.on('close', () => {
        clearTimeout(timer);
        resolve({ answer, closed: true, elapsed: Date.now() - started });
      });
    });
    await patient.close();
    rmSync(patient.dataDir, { recursive: true, force: true });
    expect(outcome.answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(outcome.closed).toBe(true);
  });

  it('answers 408 to a body that does not arrive in time, and closes the connection', async () => {
    const outcome = await partialRequest(
      stamp.url,
      post('/v1/send', [`Authorization: Bearer ${sk}`, 'Content-Length: 1000']),
      '{"to":"slow@example.org",',
      5000,
    );
    expect(outcome.answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(envelopeOf(outcome.answer).error).toMatchObject({
      code: 'REQUEST_TIMEOUT',
      statusCode: 408,
    });
    expect(outcome.closed).toBe(true);
    expect(outcome.elapsed).toBeGreaterThanOrEqual(500);
    expect(outcome.elapsed).toBeLessThan(3000);
  });

  it('times out a slow body on the public routes too', async () => {
    const outcome = await partialRequest(
      stamp.url,
      [
        'POST /unsubscribe/some-token HTTP/1.1',
        'Host: stamp.test',
        'Content-Type: application/x-www-form-urlencoded',
        'Content-Length: 100',
      ],
      'List-Unsubscribe=',
      5000,
    );
    expect(outcome.closed).toBe(true);
    expect(outcome.elapsed).toBeLessThan(3000);
  });

  it('keeps the public routes, the probes and the error envelopes', async () => {
    for (const path of ['/healthz', '/readyz', '/config', '/openapi.json', '/docs']) {
      expect([path, (await call(stamp.url, undefined, 'GET', path)).status]).toEqual([path, 200]);
    }
    const malformed = await call(stamp.url, sk, 'POST', '/contacts', '{"email":');
    expect(malformed.status).toBe(400);
    expect(malformed.body).toMatchObject({ error: { code: 'BAD_REQUEST' } });
    const form = await fetch(`${stamp.url}/unsubscribe/not-a-token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'List-Unsubscribe=One-Click',
    });
    expect(form.status).toBe(404);
    const tracked = await call(stamp.url, TEST_KEYS.publicKey, 'POST', '/v1/track', {
      event: 'signed-up',
      email: 'cors@example.org',
    });
    expect(tracked.status).toBe(200);
  });

  describe('nesting', () => {
    /** `depth` arrays around a string: a value nested `depth` levels deep. */
    const nested = (depth: number): string => `${'['.repeat(depth)}"x"${']'.repeat(depth)}`;

    it('refuses JSON nested thousands of levels deep with 400 on every route, idempotent or not', async () => {
      const deep = `{"to":${nested(5000)},"data":{"a":${nested(100_000)}}}`;
      for (const [path, headers] of [
        ['/v1/send', { 'idempotency-key': 'deep-1' }],
        ['/v1/send', {}],
        ['/v1/track', { 'idempotency-key': 'deep-2' }],
        ['/contacts', {}],
        ['/contacts/lookup', {}],
        ['/templates', {}],
        ['/v1/verify', {}],
      ] as const) {
        const response = await call(stamp.url, sk, 'POST', path, deep, headers);
        expect([path, response.status]).toEqual([path, 400]);
        expect(response.body).toMatchObject({
          success: false,
          error: { code: 'BAD_REQUEST', statusCode: 400 },
        });
      }
      expect((await call(stamp.url, undefined, 'GET', '/healthz')).status).toBe(200);
    });

    it('accepts 64 levels and refuses 65', async () => {
      // {"data": {"a": [[…]]}}: the object and `data` are two levels, the arrays the rest.
      const body = (depth: number): string =>
        `{"email":"deep@example.org","data":{"a":${nested(depth - 2)}}}`;
      const fits = await call(stamp.url, sk, 'POST', '/contacts', body(64));
      expect(fits.status).toBe(422);
      expect(fits.body).toMatchObject({ error: { code: 'VALIDATION_ERROR' } });
      const deeper = await call(stamp.url, sk, 'POST', '/contacts', body(65));
      expect(deeper.status).toBe(400);
      expect(deeper.body).toMatchObject({ error: { message: /64 levels/ } });
    });
  });
});
