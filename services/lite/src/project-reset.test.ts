/**
 * `POST /users/@me/projects/:id/reset` over real sockets (spec part 4, "Users, projects"): only
 * an OWNER may wipe; every contact is erased from the log, the project's resources leave the
 * views (a SCHEDULED campaign is cancelled first), its images are deleted, while keys, members,
 * domains and what was written after the reset stay, also through a view rebuild.
 */
import { createLogger } from '@stamp/platform';
import { startDnsServer, type TestDnsServer } from '@stamp/testkit/dns-server.ts';
import { eventually } from '@stamp/testkit/eventually.ts';
import type { JsonResponse } from '@stamp/testkit/net.ts';

import type { Stamp } from './app.ts';
import { readConfig } from './config.ts';
import { samplePng } from '../../sending/src/uploads/sample-images.ts';
import { rebuildViews } from './rebuild.ts';
import { addVerifiedDomain, call, startTestStamp, TEST_KEYS } from './testing.ts';

const sk = TEST_KEYS.secretKey;
const ORIGIN = 'http://dashboard.test';

let dns: TestDnsServer;
let stamp: Stamp & { dataDir: string };

beforeAll(async () => {
  dns = await startDnsServer({});
  stamp = await startTestStamp({ STAMP_PUBLIC_URL: ORIGIN, STAMP_DNS_SERVERS: dns.address });
});

afterAll(async () => {
  await stamp.close();
  await dns.close();
});

const api = (method: string, path: string, body?: unknown): Promise<JsonResponse> =>
  call(stamp.url, sk, method, path, body);

/** The session cookie of a new user. */
async function signup(email: string): Promise<string> {
  const response = await call(stamp.url, undefined, 'POST', '/auth/signup', {
    email,
    password: 'correct horse battery',
  });
  expect(response.status).toBe(201);
  return (
    response.headers
      .getSetCookie()
      .find((value) => value.startsWith('stamp_session='))
      ?.split(';')[0] ?? ''
  );
}

/** The items of a list answer (`data`, `contacts`, `names`, or the array itself). */
function itemsOf(body: unknown): unknown[] {
  if (Array.isArray(body)) return body;
  const record = body as { data?: unknown; contacts?: unknown; names?: unknown };
  const items = record.data ?? record.contacts ?? record.names;
  if (!Array.isArray(items)) throw new Error(`not a list: ${JSON.stringify(body)}`);
  return items;
}

it('wipes a project for its OWNER only, keeping keys, members and domains', async () => {
  const projectId = stamp.bootstrap.projectId;
  await signup('owner@example.org');
  const admin = await signup('admin@example.org');
  expect(
    (
      await api('POST', `/projects/${projectId}/members`, {
        email: 'admin@example.org',
        role: 'ADMIN',
      })
    ).status,
  ).toBe(201);
  await addVerifiedDomain(stamp.url, dns, 'reset.test');

  for (const email of ['ada@example.org', 'grace@example.org']) {
    expect(
      (await api('POST', '/v1/track', { event: 'signed-up', email, data: { plan: 'pro' } })).status,
    ).toBe(200);
  }
  const template = await api('POST', '/templates', {
    name: 'Welcome',
    subject: 'Hi',
    body: '<p>Hi</p>',
    type: 'MARKETING',
  });
  expect(template.status).toBe(201);
  const segment = await api('POST', '/segments', { name: 'Beta', type: 'STATIC' });
  expect(segment.status).toBe(201);
  const created = await api('POST', '/campaigns', {
    name: 'Later',
    subject: 'News',
    body: '<p>News</p>',
    from: 'news@reset.test',
    audienceType: 'ALL',
  });
  expect(created.status).toBe(201);
  const campaignId = (created.body as { data: { id: string } }).data.id;
  const scheduledFor = new Date(Date.now() + 3_600_000).toISOString();
  expect(
    (await api('POST', `/campaigns/${campaignId}/send`, { scheduledFor })).status,
  ).toBeLessThan(300);

  const form = new FormData();
  form.append('file', new Blob([samplePng()], { type: 'image/png' }), 'logo.png');
  const uploaded = await fetch(`${stamp.url}/uploads/image`, {
    method: 'POST',
    headers: { authorization: `Bearer ${sk}` },
    body: form,
  });
  expect(uploaded.status).toBe(201);
  const image = ((await uploaded.json()) as { url: string }).url.replace(ORIGIN, stamp.url);
  expect((await fetch(image)).status).toBe(200);

  // An ADMIN may not; the key of the project naming another one is told 403.
  const refused = await call(
    stamp.url,
    undefined,
    'POST',
    `/users/@me/projects/${projectId}/reset`,
    undefined,
    { cookie: admin, origin: ORIGIN },
  );
  expect(refused.status).toBe(403);
  expect(refused.body).toMatchObject({ error: { code: 'FORBIDDEN' } });
  expect(
    (await api('POST', '/users/@me/projects/0193aaaa-0000-7000-8000-000000000000/reset')).body,
  ).toMatchObject({ error: { code: 'PROJECT_ACCESS_DENIED' } });

  const reset = await api('POST', `/users/@me/projects/${projectId}/reset`);
  expect(reset.status).toBe(202);
  expect(reset.body).toEqual({ id: projectId, resetAt: expect.any(String) as string });

  await eventually('the project wiped', async () => {
    const lists = await Promise.all(
      ['/contacts', '/templates', '/segments', '/campaigns', '/events/names', '/activity'].map(
        async (path) => itemsOf((await api('GET', path)).body).length,
      ),
    );
    return lists.every((count) => count === 0) ? true : undefined;
  });
  // The erased contacts' personal data left the log.
  await eventually('contacts erased from the log', async () => {
    const log = JSON.stringify(await stamp.platform.store.readAll({ after: 0, limit: 100_000 }));
    return log.includes('ada@example.org') ? undefined : true;
  });
  await eventually('the image deleted', async () =>
    (await fetch(image)).status === 404 ? true : undefined,
  );
  // The scheduled campaign was cancelled, so it never sends.
  const events = await stamp.platform.store.readAll({ after: 0, limit: 100_000 });
  expect(events.filter((event) => event.type === 'CampaignCancelled')).toHaveLength(1);

  // Keys, members and domains stay; new data is the project's again.
  const domains = await api('GET', `/domains/project/${projectId}`);
  expect(JSON.stringify(domains.body)).toContain('reset.test');
  expect(itemsOf((await api('GET', `/projects/${projectId}/members`)).body)).toHaveLength(2);
  expect(
    (await api('POST', '/v1/track', { event: 'came-back', email: 'ada@example.org' })).status,
  ).toBe(200);
  const after = await api('POST', '/templates', {
    name: 'After',
    subject: 'Hi',
    body: '<p>Hi</p>',
    type: 'TRANSACTIONAL',
  });
  expect(after.status).toBe(201);
}, 60_000);

it('stays wiped through a view rebuild, keeping what came after the reset', async () => {
  await stamp.close();
  const config = readConfig({
    STAMP_PORT: '0',
    STAMP_DATA_DIR: stamp.dataDir,
    STAMP_LOG_LEVEL: 'silent',
    STAMP_INBOUND_SMTP_PORT: '0',
  });
  await rebuildViews(config, createLogger({ level: 'silent' }));
  stamp = await startTestStamp({
    STAMP_PUBLIC_URL: ORIGIN,
    STAMP_DNS_SERVERS: dns.address,
    STAMP_DATA_DIR: stamp.dataDir,
  });
  const templates = itemsOf((await api('GET', '/templates')).body) as { name: string }[];
  expect(templates.map((template) => template.name)).toEqual(['After']);
  const contacts = itemsOf((await api('GET', '/contacts')).body) as { email: string }[];
  expect(contacts.map((contact) => contact.email)).toEqual(['ada@example.org']);
  expect(itemsOf((await api('GET', '/campaigns')).body)).toHaveLength(0);
  expect(itemsOf((await api('GET', '/segments')).body)).toHaveLength(0);
}, 60_000);
