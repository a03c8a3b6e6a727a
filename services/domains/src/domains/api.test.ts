/**
 * API tests of the domains routes over a real socket (serveRouter), on a real embedded platform
 * and a real DNS server on loopback (startDnsServer), through the DnsResolver adapter.
 */
import { createPublicKey, createSign, createVerify, randomBytes } from 'node:crypto';

import {
  DnsResolver,
  type EmbeddedPlatform,
  createLogger,
  openEmbeddedPlatform,
  Secrets,
} from '@stamp/platform';
import { type TestDnsServer, startDnsServer } from '@stamp/testkit/dns-server.ts';
import { type ServedRouter, serveRouter } from '@stamp/testkit/http.ts';

import { createDomainsService } from '../index.ts';
import { domainStream } from './events.ts';
import { domainsProjection } from './projection.ts';
import { domainsView } from './views.ts';

interface Rec {
  type: string;
  name: string;
  value: string;
  priority?: number;
  purpose: string;
  status: string;
}
interface Resource {
  id: string;
  domain: string;
  status: string;
  verified: boolean;
  records: Rec[];
  createdAt: string;
  verifiedAt?: string;
}
interface ErrorBody {
  success: false;
  error: { code: string; statusCode: number; errors?: { field: string }[] };
}

let platform: EmbeddedPlatform;
let dns: TestDnsServer;
let service: ReturnType<typeof createDomainsService>;
let p1: ServedRouter;
let p2: ServedRouter;
const bodies: string[] = [];
const secrets = new Secrets(randomBytes(32));

async function call(
  server: ServedRouter,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: unknown }> {
  const response = await server.request(method, path, body);
  bodies.push(JSON.stringify(response.body));
  return response;
}

const record = (domain: Resource, purpose: string): Rec => {
  const found = domain.records.find((item) => item.purpose === purpose);
  if (found === undefined) throw new Error(`no ${purpose} record`);
  return found;
};

const keyOf = (domain: Resource): string => {
  const match = /p=(.+)$/.exec(record(domain, 'DKIM').value);
  if (match?.[1] === undefined) throw new Error('no p= tag');
  return match[1];
};

/** Publishes every record of `domain` in the test DNS server. */
function publish(domain: Resource, dkimValue = record(domain, 'DKIM').value): void {
  dns.set(record(domain, 'DKIM').name, { TXT: [dkimValue] });
  dns.set(record(domain, 'SPF').name, {
    TXT: [record(domain, 'SPF').value],
    MX: [{ exchange: record(domain, 'RETURN_PATH').value, priority: 10 }],
  });
  dns.set(record(domain, 'DMARC').name, { TXT: [record(domain, 'DMARC').value] });
}

async function add(name: string): Promise<Resource> {
  const response = await call(p1, 'POST', '/domains', { domain: name });
  expect(response.status).toBe(201);
  return response.body as Resource;
}

beforeAll(async () => {
  const logger = createLogger({ level: 'silent' });
  platform = openEmbeddedPlatform({ dataDir: ':memory:', logger });
  dns = await startDnsServer();
  service = createDomainsService({
    store: platform.store,
    bus: platform.bus,
    views: platform.views,
    logger,
    resolver: new DnsResolver({ servers: [dns.address], timeoutMs: 1000, tries: 1 }),
    secrets,
    awaitViews: async (position) => {
      for (const projection of service.projections?.() ?? [])
        await projection.waitFor(position, 2000);
    },
  });
  await service.start();
  if (service.router === undefined) throw new Error('no router');
  p1 = await serveRouter(service.router, { projectId: 'p1', keyKind: 'secret' });
  p2 = await serveRouter(service.router, { projectId: 'p2', keyKind: 'secret' });
});

afterAll(async () => {
  await p1.close();
  await p2.close();
  await service.stop();
  await dns.close();
  await platform.close();
});

describe('domains API', () => {
  let example: Resource;

  it('POST /domains answers 201 with the records and a valid RSA-2048 DKIM key', async () => {
    example = await add('Example.COM');
    expect(example).toMatchObject({ domain: 'example.com', status: 'PENDING', verified: false });
    expect(example.verifiedAt).toBeUndefined();
    expect(Number.isNaN(Date.parse(example.createdAt))).toBe(false);
    const dkim = record(example, 'DKIM');
    expect(dkim.name).toMatch(/^stamp-[0-9a-f]{6}\._domainkey\.example\.com$/);
    expect(dkim.value).toMatch(/^v=DKIM1; k=rsa; p=[A-Za-z0-9+/=]+$/);
    const key = createPublicKey({
      key: Buffer.from(keyOf(example), 'base64'),
      format: 'der',
      type: 'spki',
    });
    expect(key.asymmetricKeyType).toBe('rsa');
    expect(key.asymmetricKeyDetails?.modulusLength).toBe(2048);
    expect(
      example.records.map(({ type, name, value, priority, purpose, status }) => ({
        type,
        name,
        value,
        priority,
        purpose,
        status,
      })),
    ).toEqual([
      {
        type: 'TXT',
        name: dkim.name,
        value: dkim.value,
        priority: undefined,
        purpose: 'DKIM',
        status: 'PENDING',
      },
      {
        type: 'TXT',
        name: 'bounce.example.com',
        value: 'v=spf1 include:spf.stamp.localhost ~all',
        priority: undefined,
        purpose: 'SPF',
        status: 'PENDING',
      },
      {
        type: 'MX',
        name: 'bounce.example.com',
        value: 'feedback.stamp.localhost',
        priority: 10,
        purpose: 'RETURN_PATH',
        status: 'PENDING',
      },
      {
        type: 'TXT',
        name: '_dmarc.example.com',
        value: 'v=DMARC1; p=none;',
        priority: undefined,
        purpose: 'DMARC',
        status: 'PENDING',
      },
      {
        type: 'MX',
        name: 'example.com',
        value: 'feedback.stamp.localhost',
        priority: 10,
        purpose: 'INBOUND',
        status: 'PENDING',
      },
    ]);
  });

  it('lists the new domain at once (read-your-writes)', async () => {
    const response = await call(p1, 'GET', '/domains/project/p1');
    expect(response.status).toBe(200);
    expect((response.body as Resource[]).map((item) => item.id)).toEqual([example.id]);
  });

  it('verify before the DNS records exist stays PENDING with DKIM PENDING', async () => {
    const response = await call(p1, 'GET', `/domains/${example.id}/verify`);
    expect(response.status).toBe(200);
    const body = response.body as Resource;
    expect(body).toMatchObject({ id: example.id, status: 'PENDING', verified: false });
    expect(record(body, 'DKIM').status).toBe('PENDING');
    expect(await service.api.senderDomain('p1', 'a@example.com')).toMatchObject({
      verified: false,
    });
  });

  it('verify with the records published answers VERIFIED; the key signs verifiably', async () => {
    publish(example);
    const response = await call(p1, 'GET', `/domains/${example.id}/verify`);
    expect(response.status).toBe(200);
    const body = response.body as Resource;
    expect(body).toMatchObject({ status: 'VERIFIED', verified: true });
    expect(body.verifiedAt).toEqual(expect.any(String));
    // The INBOUND MX is optional (only to receive the domain's mail) and was not published.
    expect(body.records.map((item) => item.status)).toEqual([
      'VERIFIED',
      'VERIFIED',
      'VERIFIED',
      'VERIFIED',
      'PENDING',
    ]);

    const sender = await service.api.senderDomain('p1', 'Someone@EXAMPLE.com');
    expect(sender).toMatchObject({
      domain: 'example.com',
      verified: true,
      dkim: { domainName: 'example.com', keySelector: record(example, 'DKIM').name.split('.')[0] },
    });
    const signature = createSign('sha256').update('hello').sign(sender!.dkim.privateKey);
    const published = createPublicKey({
      key: Buffer.from(keyOf(example), 'base64'),
      format: 'der',
      type: 'spki',
    });
    expect(createVerify('sha256').update('hello').verify(published, signature)).toBe(true);

    const listed = await call(p1, 'GET', '/domains/project/p1');
    expect((listed.body as Resource[])[0]).toMatchObject({ status: 'VERIFIED', verified: true });
  });

  it('senderDomain is null for another project or an unknown domain', async () => {
    expect(await service.api.senderDomain('p2', 'a@example.com')).toBeNull();
    expect(await service.api.senderDomain('p1', 'a@sub.example.com')).toBeNull();
    expect(await service.api.senderDomain('p1', 'not-an-address')).toBeNull();
  });

  it('a DKIM record with another key leaves the domain PENDING', async () => {
    const wrong = await add('wrong.example');
    const other = await add('other.example');
    publish(wrong, record(other, 'DKIM').value);
    const response = await call(p1, 'GET', `/domains/${wrong.id}/verify`);
    const body = response.body as Resource;
    expect(body).toMatchObject({ status: 'PENDING', verified: false });
    expect(record(body, 'DKIM').status).toBe('FAILED');
    expect(record(body, 'SPF').status).toBe('VERIFIED');
  });

  it('checkPending verifies pending domains whose records appeared', async () => {
    const later = await add('later.example');
    publish(later);
    const pending = await domainsView(platform.views).countDocuments({ status: 'PENDING' });
    expect(await service.api.checkPending()).toBe(pending);
    const listed = (await call(p1, 'GET', '/domains/project/p1')).body as Resource[];
    expect(listed.find((item) => item.id === later.id)).toMatchObject({ status: 'VERIFIED' });
    expect(listed.find((item) => item.domain === 'wrong.example')).toMatchObject({
      status: 'PENDING',
    });
  });

  it('another project cannot list, verify or delete p1 domains', async () => {
    const list = await call(p2, 'GET', '/domains/project/p1');
    expect(list.status).toBe(403);
    expect((list.body as ErrorBody).error.code).toBe('PROJECT_ACCESS_DENIED');
    expect((await call(p2, 'GET', '/domains/project/p2')).body).toEqual([]);
    const verify = await call(p2, 'GET', `/domains/${example.id}/verify`);
    expect([verify.status, (verify.body as ErrorBody).error.code]).toEqual([
      404,
      'DOMAIN_NOT_FOUND',
    ]);
    expect((await call(p2, 'DELETE', `/domains/${example.id}`)).status).toBe(404);
    expect((await call(p1, 'GET', '/domains/unknown/verify')).status).toBe(404);
  });

  it('409 for a domain the project already has; another project may add it', async () => {
    const response = await call(p1, 'POST', '/domains', { domain: 'EXAMPLE.com.' });
    expect(response.status).toBe(409);
    expect((response.body as ErrorBody).error.code).toBe('CONFLICT');
    expect((await call(p2, 'POST', '/domains', { domain: 'example.com' })).status).toBe(201);
  });

  it.each([
    { domain: 'not a domain' },
    { domain: 'localhost' },
    { domain: 42 },
    {},
    { domain: '1.2.3.4' },
  ])('422 VALIDATION_ERROR for %p', async (body) => {
    const response = await call(p1, 'POST', '/domains', body);
    expect(response.status).toBe(422);
    const error = (response.body as ErrorBody).error;
    expect(error.code).toBe('VALIDATION_ERROR');
    expect(error.errors?.[0]?.field).toBe('domain');
  });

  it('DELETE removes the domain; it can then be added again', async () => {
    const response = await call(p1, 'DELETE', `/domains/${example.id}`);
    expect(response.status).toBe(200);
    expect((await call(p1, 'GET', `/domains/${example.id}/verify`)).status).toBe(404);
    expect((await call(p1, 'DELETE', `/domains/${example.id}`)).status).toBe(404);
    const listed = (await call(p1, 'GET', '/domains/project/p1')).body as Resource[];
    expect(listed.some((item) => item.id === example.id)).toBe(false);
    expect(await service.api.senderDomain('p1', 'a@example.com')).toBeNull();
    const again = await add('example.com');
    expect(again.id).not.toBe(example.id);
  });

  it('the projection is idempotent: replayed events change nothing', async () => {
    const later = ((await call(p1, 'GET', '/domains/project/p1')).body as Resource[]).find(
      (item) => item.domain === 'later.example',
    )!;
    const before = await domainsView(platform.views).findOne({ _id: later.id });
    const handle = domainsProjection(platform.views);
    for (const event of await platform.store.readStream(domainStream(later.id)))
      await handle(event);
    expect(await domainsView(platform.views).findOne({ _id: later.id })).toEqual(before);
    expect(before).toMatchObject({ status: 'VERIFIED', verified: true });
  });

  it('no plaintext private key in the raw events and view tables', async () => {
    await platform.views.flush();
    const rows = [
      ...platform.db.prepare('SELECT type, data AS text FROM events').all(),
      ...platform.db.prepare('SELECT \'domains\' AS type, doc AS text FROM "view:domains"').all(),
    ] as { type: string; text: string }[];
    expect(rows.some((row) => row.type === 'DomainAdded')).toBe(true);
    expect(rows.some((row) => row.type === 'domains')).toBe(true);
    for (const row of rows) expect(row.text).not.toContain('PRIVATE KEY');
    const added = (await platform.store.readStream(domainStream(example.id)))[0];
    const sealed = (added?.data as { privateKey: string }).privateKey;
    expect(sealed).toMatch(/^v1\./);
    expect(secrets.open('dkim', sealed)).toContain('-----BEGIN PRIVATE KEY-----');
    expect(() => new Secrets(randomBytes(32)).open('dkim', sealed)).toThrow();
  });

  it('no response body ever carried a private key', () => {
    expect(bodies.length).toBeGreaterThan(10);
    for (const body of bodies) {
      expect(body).not.toContain('PRIVATE KEY');
      expect(body).not.toContain('privateKey');
    }
  });
});
