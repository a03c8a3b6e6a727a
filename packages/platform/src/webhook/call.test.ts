import { createServer, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import type { ServerResponse } from 'node:http';
import { createSocket } from 'node:dgram';
import type { AddressInfo } from 'node:net';

import { startDnsServer, type TestDnsServer } from '@stamp/testkit/dns-server.ts';

import { DnsResolver } from '../resolver/resolver.ts';

import { callWebhook, WebhookError, type WebhookOptions, type WebhookRequest } from './call.ts';

/** One request as the test server received it. */
interface Received {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A real HTTP server on 127.0.0.1 that records what it receives. */
interface TestServer {
  port: number;
  requests: Received[];
  /** TCP connections accepted, requests or not. */
  connections: () => number;
  close(): Promise<void>;
}

type Handler = (request: Received, res: ServerResponse, index: number) => void;

async function serve(handler: Handler): Promise<TestServer> {
  const requests: Received[] = [];
  let connections = 0;
  const server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const received: Received = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      requests.push(received);
      handler(received, res, requests.length - 1);
    });
  });
  server.on('connection', () => {
    connections += 1;
  });
  await new Promise<void>((resolve) => {
    server.listen(0, '127.0.0.1', resolve);
  });
  return {
    port: (server.address() as AddressInfo).port,
    requests,
    connections: () => connections,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  };
}

function reply(res: ServerResponse, status: number, body = ''): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' });
  res.end(body);
}

/** A loopback UDP port nobody listens on: DNS queries sent there fail. */
async function unusedUdpPort(): Promise<number> {
  const socket = createSocket('udp4');
  await new Promise<void>((resolve) => {
    socket.bind(0, '127.0.0.1', resolve);
  });
  const { port } = socket.address();
  await new Promise<void>((resolve) => {
    socket.close(() => {
      resolve();
    });
  });
  return port;
}

/** Awaits a rejection and returns it as a WebhookError (fails the test otherwise). */
async function failure(promise: Promise<unknown>): Promise<WebhookError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(WebhookError);
    return error as WebhookError;
  }
  throw new Error('expected a WebhookError, got an answer');
}

describe('callWebhook', () => {
  let dns: TestDnsServer;
  let resolver: DnsResolver;
  const servers: TestServer[] = [];

  beforeAll(async () => {
    dns = await startDnsServer({
      'hooks.example': { A: ['127.0.0.1'] },
      'rebind.example': { A: ['127.0.0.1'] },
      'internal.example': { A: ['10.0.0.1'] },
      'mixed.example': { A: ['93.184.215.14', '192.168.1.20'] },
      'v6-loop.example': { AAAA: ['::1'] },
      'v6-mapped.example': { AAAA: ['::ffff:127.0.0.1'] },
      'empty.example': { TXT: ['no addresses here'] },
    });
    resolver = new DnsResolver({ servers: [dns.address], timeoutMs: 1000, tries: 2 });
  });

  afterAll(async () => {
    await dns.close();
  });

  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.close()));
  });

  async function start(handler: Handler): Promise<TestServer> {
    const server = await serve(handler);
    servers.push(server);
    return server;
  }

  const post = (url: string, body: string | null = '{"hello":"world"}'): WebhookRequest => ({
    url,
    method: 'POST',
    headers: {},
    body,
  });

  const allowed = (extra: Partial<WebhookOptions> = {}): WebhookOptions => ({
    resolver,
    allowPrivateTargets: true,
    idempotencyKey: 'exec-1:step-2',
    backoffMs: 10,
    timeoutMs: 2000,
    ...extra,
  });

  it('sends method, path, headers, body and Idempotency-Key as given and returns the answer', async () => {
    const server = await start((_request, res) => {
      reply(res, 201, 'créé');
    });
    const response = await callWebhook(
      {
        url: `http://hooks.example:${server.port}/hooks/in?source=stamp`,
        method: 'POST',
        headers: { 'X-Signature': 'sig=abc', Authorization: 'Bearer token-1' },
        body: '{"contact":{"email":"ada@example.org"}}',
      },
      allowed(),
    );
    expect(response).toEqual({
      status: 201,
      body: 'créé',
      attempts: 1,
      durationMs: expect.any(Number) as unknown,
    });
    expect(response.durationMs).toBeGreaterThanOrEqual(0);
    expect(server.requests).toHaveLength(1);
    const [received] = server.requests;
    expect(received).toEqual({
      method: 'POST',
      url: '/hooks/in?source=stamp',
      body: '{"contact":{"email":"ada@example.org"}}',
      headers: expect.objectContaining({
        host: `hooks.example:${server.port}`,
        'x-signature': 'sig=abc',
        authorization: 'Bearer token-1',
        'idempotency-key': 'exec-1:step-2',
        'user-agent': 'Stamp-Webhook/1',
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength('{"contact":{"email":"ada@example.org"}}')),
      }) as unknown,
    });
  });

  it('keeps a given content type, sends no content type without a body and ignores reserved headers', async () => {
    const server = await start((_request, res) => {
      reply(res, 200);
    });
    await callWebhook(
      {
        url: `http://127.0.0.1:${server.port}/form`,
        method: 'PUT',
        headers: { 'Content-Type': 'text/plain', 'User-Agent': 'spoof', 'idempotency-KEY': 'x' },
        body: 'plain',
      },
      allowed(),
    );
    await callWebhook(
      { url: `http://127.0.0.1:${server.port}/ping`, method: 'GET', headers: {}, body: null },
      allowed(),
    );
    const [put, get] = server.requests;
    expect(put!.headers['content-type']).toBe('text/plain');
    expect(put!.headers['user-agent']).toBe('Stamp-Webhook/1');
    expect(put!.headers['idempotency-key']).toBe('exec-1:step-2');
    expect(get!.method).toBe('GET');
    expect(get!.headers['content-type']).toBeUndefined();
    expect(get!.headers['idempotency-key']).toBe('exec-1:step-2');
  });

  it('retries a 503 and succeeds on the second attempt with the same Idempotency-Key', async () => {
    const server = await start((_request, res, index) => {
      if (index === 0) reply(res, 503, 'busy');
      else reply(res, 200, 'ok');
    });
    const response = await callWebhook(post(`http://127.0.0.1:${server.port}/`), allowed());
    expect(response).toMatchObject({ status: 200, body: 'ok', attempts: 2 });
    expect(server.requests.map((request) => request.headers['idempotency-key'])).toEqual([
      'exec-1:step-2',
      'exec-1:step-2',
    ]);
    expect(server.requests.map((request) => request.body)).toEqual([
      '{"hello":"world"}',
      '{"hello":"world"}',
    ]);
  });

  it('throws a transient WebhookError after every attempt answered 500', async () => {
    const server = await start((_request, res) => {
      reply(res, 500, 'broken');
    });
    const error = await failure(
      callWebhook(post(`http://127.0.0.1:${server.port}/`), allowed({ attempts: 4 })),
    );
    expect(error).toMatchObject({ permanent: false, status: 500, attempts: 4 });
    expect(server.requests).toHaveLength(4);
  });

  it('backs off exponentially between attempts', async () => {
    const server = await start((_request, res) => {
      reply(res, 502);
    });
    const started = performance.now();
    await failure(
      callWebhook(
        post(`http://127.0.0.1:${server.port}/`),
        allowed({ attempts: 3, backoffMs: 100 }),
      ),
    );
    // 100 ms then 200 ms of waiting.
    expect(performance.now() - started).toBeGreaterThanOrEqual(290);
    expect(server.requests).toHaveLength(3);
  });

  it('resolves the name once and connects to the checked address on every attempt', async () => {
    const server = await start((_request, res, index) => {
      if (index === 0) reply(res, 503);
      else reply(res, 200);
    });
    const asked: string[] = [];
    const counting: WebhookOptions['resolver'] = {
      txt: (name) => resolver.txt(name),
      mx: (name) => resolver.mx(name),
      ns: (name) => resolver.ns(name),
      a: (name) => {
        asked.push(`A ${name}`);
        return resolver.a(name);
      },
      aaaa: (name) => {
        asked.push(`AAAA ${name}`);
        return resolver.aaaa(name);
      },
    };
    dns.set('flip.example', { A: ['127.0.0.1'] });
    const response = await callWebhook(
      post(`http://flip.example:${server.port}/`),
      allowed({ resolver: counting, backoffMs: 100 }),
    );
    expect(response).toMatchObject({ status: 200, attempts: 2 });
    expect(asked).toEqual(['A flip.example', 'AAAA flip.example']);
    expect(server.requests.map((request) => request.headers.host)).toEqual([
      `flip.example:${server.port}`,
      `flip.example:${server.port}`,
    ]);
  });

  it('returns a 404 as the answer, without retrying', async () => {
    const server = await start((_request, res) => {
      reply(res, 404, 'no such hook');
    });
    const response = await callWebhook(post(`http://127.0.0.1:${server.port}/`), allowed());
    expect(response).toMatchObject({ status: 404, body: 'no such hook', attempts: 1 });
    expect(server.requests).toHaveLength(1);
  });

  it('does not follow redirects', async () => {
    const server = await start((_request, res) => {
      res.writeHead(302, { location: 'http://10.0.0.1/' });
      res.end();
    });
    const response = await callWebhook(post(`http://127.0.0.1:${server.port}/`), allowed());
    expect(response).toMatchObject({ status: 302, attempts: 1 });
    expect(server.requests).toHaveLength(1);
  });

  it('gives up on a server slower than timeoutMs after retrying', async () => {
    const server = await start(() => {
      // never answers; the connection is closed when the server is
    });
    const started = performance.now();
    const error = await failure(
      callWebhook(
        post(`http://127.0.0.1:${server.port}/`),
        allowed({ attempts: 2, timeoutMs: 200, backoffMs: 10 }),
      ),
    );
    expect(error).toMatchObject({ permanent: false, status: null, attempts: 2 });
    expect(error.message).toMatch(/200 ms/);
    expect(server.requests).toHaveLength(2);
    expect(performance.now() - started).toBeLessThan(2000);
  });

  it('times out a body that never ends', async () => {
    const server = await start((_request, res) => {
      res.writeHead(200, { 'content-length': '100' });
      res.write('partial');
    });
    const error = await failure(
      callWebhook(
        post(`http://127.0.0.1:${server.port}/`),
        allowed({ attempts: 1, timeoutMs: 200 }),
      ),
    );
    expect(error).toMatchObject({ permanent: false, status: null, attempts: 1 });
  });

  it('retries network errors: nobody listening', async () => {
    const server = await serve(() => undefined);
    const { port } = server;
    await server.close();
    const error = await failure(
      callWebhook(post(`http://127.0.0.1:${port}/`), allowed({ attempts: 2 })),
    );
    expect(error).toMatchObject({ permanent: false, status: null, attempts: 2 });
  });

  it('keeps at most maxResponseBytes of the body', async () => {
    const big = 'x'.repeat(200_000);
    const server = await start((_request, res) => {
      reply(res, 200, big);
    });
    const response = await callWebhook(
      post(`http://127.0.0.1:${server.port}/`),
      allowed({ maxResponseBytes: 1000 }),
    );
    expect(response.status).toBe(200);
    expect(response.body).toBe('x'.repeat(1000));
  });

  it('drops a character cut by maxResponseBytes whole', async () => {
    const server = await start((_request, res) => {
      reply(res, 200, 'é'.repeat(10)); // 2 bytes each
    });
    const response = await callWebhook(
      post(`http://127.0.0.1:${server.port}/`),
      allowed({ maxResponseBytes: 5 }),
    );
    expect(response.body).toBe('éé');
  });

  it('keeps the default 64 KiB of a large body', async () => {
    const server = await start((_request, res) => {
      reply(res, 200, 'y'.repeat(100_000));
    });
    const response = await callWebhook(post(`http://127.0.0.1:${server.port}/`), allowed());
    expect(response.body).toHaveLength(64 * 1024);
  });

  describe('private targets refused', () => {
    async function expectRefused(url: string): Promise<WebhookError> {
      const error = await failure(
        callWebhook(post(url), {
          resolver,
          allowPrivateTargets: false,
          idempotencyKey: 'k',
          backoffMs: 10,
          timeoutMs: 1000,
        }),
      );
      expect(error.permanent).toBe(true);
      expect(error.status).toBeNull();
      expect(error.message).toMatch(/private or internal address/);
      return error;
    }

    it('refuses a loopback literal, and the server receives nothing', async () => {
      const server = await start((_request, res) => {
        reply(res, 200);
      });
      const error = await expectRefused(`http://127.0.0.1:${server.port}/`);
      expect(error.attempts).toBe(1);
      expect(server.requests).toHaveLength(0);
      expect(server.connections()).toBe(0);
    });

    it('refuses a name that resolves to loopback (DNS rebinding), and the server receives nothing', async () => {
      const server = await start((_request, res) => {
        reply(res, 200);
      });
      await expectRefused(`http://rebind.example:${server.port}/`);
      expect(server.connections()).toBe(0);
      // The same call is allowed when private targets are.
      const response = await callWebhook(post(`http://rebind.example:${server.port}/`), allowed());
      expect(response.status).toBe(200);
    });

    it('refuses names resolving to private, IPv6 loopback or IPv4-mapped loopback addresses', async () => {
      await expectRefused('http://internal.example/');
      await expectRefused('https://v6-loop.example/');
      await expectRefused('http://v6-mapped.example/');
      await expectRefused('http://localhost:8080/');
    });

    it('refuses a name when any one of its addresses is private', async () => {
      await expectRefused('http://mixed.example/');
    });

    it.each([
      'http://10.0.0.1/',
      'http://172.16.5.4/',
      'http://172.31.255.255/',
      'http://192.168.0.1/',
      'http://169.254.169.254/latest/meta-data/',
      'http://100.64.0.1/',
      'http://0.0.0.0/',
      'http://224.0.0.1/',
      'http://255.255.255.255/',
      'http://2130706433/',
      'http://0x7f.1/',
      'http://[::1]/',
      'http://[::]/',
      'http://[fe80::1]/',
      'http://[fc00::1]/',
      'http://[fd12:3456::1]/',
      'http://[ff02::1]/',
      'http://[::ffff:127.0.0.1]/',
      'http://[::ffff:10.0.0.1]/',
      'http://[64:ff9b::10.0.0.1]/',
      'http://[2002:c0a8:101::1]/',
    ])('refuses %s', async (url) => {
      await expectRefused(url);
    });

    it('does not refuse a public address', async () => {
      // 192.0.2.1 (TEST-NET-1) is public for the check but unreachable: the call fails in the
      // network, transiently, instead of being refused.
      const error = await failure(
        callWebhook(post('http://192.0.2.1/'), {
          resolver,
          allowPrivateTargets: false,
          idempotencyKey: 'k',
          attempts: 1,
          timeoutMs: 100,
        }),
      );
      expect(error.permanent).toBe(false);
    });
  });

  describe('permanent and DNS errors', () => {
    it.each(['ftp://127.0.0.1/file', 'file:///etc/passwd', 'gopher://127.0.0.1/', 'not a url'])(
      'refuses %s before any attempt',
      async (url) => {
        const error = await failure(callWebhook(post(url), allowed()));
        expect(error).toMatchObject({ permanent: true, status: null, attempts: 0 });
      },
    );

    it('refuses a header with a line break before any attempt', async () => {
      const error = await failure(
        callWebhook(
          {
            url: 'http://127.0.0.1:9/',
            method: 'POST',
            headers: { 'x-a': 'b\r\nx-b: c' },
            body: null,
          },
          allowed(),
        ),
      );
      expect(error).toMatchObject({ permanent: true, attempts: 0 });
    });

    it('fails permanently for a name that does not exist or has no address', async () => {
      const missing = await failure(callWebhook(post('http://missing.example/'), allowed()));
      expect(missing).toMatchObject({ permanent: true, status: null, attempts: 1 });
      expect(missing.message).toMatch(/NXDOMAIN/);
      const empty = await failure(callWebhook(post('http://empty.example/'), allowed()));
      expect(empty).toMatchObject({ permanent: true, status: null, attempts: 1 });
    });

    it('retries, then fails transiently, when the DNS server does not answer', async () => {
      const port = await unusedUdpPort();
      const broken = new DnsResolver({ servers: [`127.0.0.1:${port}`], timeoutMs: 100, tries: 1 });
      const error = await failure(
        callWebhook(post('http://hooks.example/'), allowed({ resolver: broken, attempts: 2 })),
      );
      expect(error).toMatchObject({ permanent: false, status: null, attempts: 2 });
      expect(error.message).toMatch(/DNS/);
    });

    it('rejects out-of-range options', async () => {
      await expect(
        callWebhook(post('http://x.example/'), allowed({ attempts: 0 })),
      ).rejects.toThrow(RangeError);
      await expect(
        callWebhook(post('http://x.example/'), allowed({ idempotencyKey: '' })),
      ).rejects.toThrow(RangeError);
    });
  });
});
