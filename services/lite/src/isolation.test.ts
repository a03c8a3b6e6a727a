/**
 * Projects are kept apart on every resource type (spec part 5; API reference, "Dashboard
 * authentication and members"): each route naming a resource of project A answers 404 to project
 * B's secret key (403 PROJECT_ACCESS_DENIED where the path names project A itself) and 404 to a
 * session of a user who is no member of A, reads nothing and changes nothing; A's own key still
 * finds every resource afterwards.
 */
import { startDnsServer, type TestDnsServer } from '@stamp/testkit/dns-server.ts';
import type { JsonResponse } from '@stamp/testkit/net.ts';

import type { Stamp } from './app.ts';
import { addVerifiedDomain, call, startTestStamp, TEST_KEYS } from './testing.ts';

const ORIGIN = 'http://dashboard.test';
const keyA = TEST_KEYS.secretKey;

let dns: TestDnsServer;
let stamp: Stamp;

beforeAll(async () => {
  dns = await startDnsServer({});
  stamp = await startTestStamp({
    STAMP_PUBLIC_URL: ORIGIN,
    STAMP_DNS_SERVERS: dns.address,
    STAMP_ALLOW_PRIVATE_TARGETS: 'true',
  });
});

afterAll(async () => {
  await stamp.close();
  await dns.close();
});

/** The body of an answer expected with `status`. */
async function expectStatus<T>(answer: Promise<JsonResponse>, status: number): Promise<T> {
  const response = await answer;
  if (response.status !== status) {
    throw new Error(`expected ${status}, got ${response.status} ${JSON.stringify(response.body)}`);
  }
  return response.body as T;
}

it('answers 404 to another project on every route that names a resource', async () => {
  const a = (method: string, path: string, body?: unknown) =>
    call(stamp.url, keyA, method, path, body);
  const projectA = stamp.bootstrap.projectId;

  // Project A's resources, one of each type.
  await addVerifiedDomain(stamp.url, dns, 'isolation.test');
  const [domain] = await expectStatus<{ id: string }[]>(
    a('GET', `/domains/project/${projectA}`),
    200,
  );
  const contact = await expectStatus<{ id: string }>(
    a('POST', '/contacts', { email: 'ada@example.org', data: { plan: 'pro' } }),
    201,
  );
  await expectStatus(a('POST', '/v1/track', { event: 'signed-up', email: 'ada@example.org' }), 200);
  const template = await expectStatus<{ id: string }>(
    a('POST', '/templates', { name: 'T', subject: 'S', body: '<p>B</p>', type: 'MARKETING' }),
    201,
  );
  const { data: campaign } = await expectStatus<{ data: { id: string } }>(
    a('POST', '/campaigns', {
      name: 'C',
      subject: 'S',
      body: '<p>B</p>',
      from: 'news@isolation.test',
      audienceType: 'ALL',
    }),
    201,
  );
  const segment = await expectStatus<{ id: string }>(
    a('POST', '/segments', { name: 'S', type: 'STATIC' }),
    201,
  );
  const workflow = await expectStatus<{ id: string }>(
    a('POST', '/workflows', { name: 'W', eventName: 'signed-up' }),
    201,
  );
  const endpoint = await expectStatus<{ id: string }>(
    a('POST', '/webhook-endpoints', {
      url: 'http://127.0.0.1:9/hook',
      eventTypes: ['contact.created'],
    }),
    201,
  );
  const sent = await expectStatus<{ data: { emails: { email: string }[] } }>(
    a('POST', '/v1/send', {
      to: 'ada@example.org',
      from: 'hello@sandbox.stamp.localhost',
      subject: 'Hi',
      body: '<p>Hi</p>',
    }),
    200,
  );
  const email = sent.data.emails[0]?.email ?? '';

  // Project A's owner signs up first (the first user owns the bootstrap project); project B
  // is a second user's own project, with its key.
  expect(
    (
      await call(stamp.url, undefined, 'POST', '/auth/signup', {
        email: 'owner@example.org',
        password: 'correct horse battery',
      })
    ).status,
  ).toBe(201);
  const signedUp = await call(stamp.url, undefined, 'POST', '/auth/signup', {
    email: 'outsider@example.org',
    password: 'correct horse battery',
  });
  expect(signedUp.status).toBe(201);
  const cookie = signedUp.headers.getSetCookie()[0]?.split(';')[0] ?? '';
  const projectB = await expectStatus<{ id: string; secretKey: string }>(
    call(
      stamp.url,
      undefined,
      'POST',
      '/users/@me/projects',
      { name: 'B' },
      {
        cookie,
        origin: ORIGIN,
      },
    ),
    201,
  );

  const routes: [string, string, unknown?][] = [
    ['GET', `/contacts/${contact.id}`],
    ['PATCH', `/contacts/${contact.id}`, { data: { plan: 'free' } }],
    ['DELETE', `/contacts/${contact.id}`],
    ['GET', `/events/contact/${contact.id}`],
    ['GET', `/templates/${template.id}`],
    ['PATCH', `/templates/${template.id}`, { name: 'Taken' }],
    ['GET', `/templates/${template.id}/usage`],
    ['POST', `/templates/${template.id}/duplicate`],
    ['DELETE', `/templates/${template.id}`],
    ['GET', `/campaigns/${campaign.id}`],
    [
      'PUT',
      `/campaigns/${campaign.id}`,
      {
        name: 'Taken',
        subject: 'S',
        body: '<p>B</p>',
        from: 'news@isolation.test',
        audienceType: 'ALL',
      },
    ],
    ['GET', `/campaigns/${campaign.id}/stats`],
    ['POST', `/campaigns/${campaign.id}/send`, {}],
    ['POST', `/campaigns/${campaign.id}/test`, { email: 'probe@example.org' }],
    ['POST', `/campaigns/${campaign.id}/duplicate`],
    ['POST', `/campaigns/${campaign.id}/cancel`],
    ['DELETE', `/campaigns/${campaign.id}`],
    ['GET', `/segments/${segment.id}`],
    ['PATCH', `/segments/${segment.id}`, { name: 'Taken' }],
    ['GET', `/segments/${segment.id}/contacts`],
    ['POST', `/segments/${segment.id}/members`, { emails: ['ada@example.org'] }],
    ['DELETE', `/segments/${segment.id}/members`, { emails: ['ada@example.org'] }],
    ['POST', `/segments/${segment.id}/compute`],
    ['POST', `/segments/${segment.id}/refresh`],
    ['DELETE', `/segments/${segment.id}`],
    ['GET', `/workflows/${workflow.id}`],
    ['PATCH', `/workflows/${workflow.id}`, { name: 'Taken' }],
    ['GET', `/workflows/${workflow.id}/executions`],
    [
      'POST',
      `/workflows/${workflow.id}/steps`,
      { type: 'DELAY', config: { amount: 1, unit: 'hours' } },
    ],
    ['POST', `/workflows/${workflow.id}/executions/cancel-all`],
    ['DELETE', `/workflows/${workflow.id}`],
    ['GET', `/domains/${domain?.id ?? ''}/verify`],
    ['GET', `/domains/project/${projectA}`],
    ['DELETE', `/domains/${domain?.id ?? ''}`],
    ['GET', `/webhook-endpoints/${endpoint.id}`],
    ['PATCH', `/webhook-endpoints/${endpoint.id}`, { enabled: false }],
    ['GET', `/webhook-endpoints/${endpoint.id}/deliveries`],
    ['DELETE', `/webhook-endpoints/${endpoint.id}`],
    ['GET', `/emails/${email}`],
    ['GET', `/outbox/${email}`],
    ['GET', `/projects/${projectA}/members`],
    ['GET', `/projects/${projectA}/setup-state`],
    ['GET', `/projects/${projectA}/security`],
    ['PATCH', `/users/@me/projects/${projectA}`, { name: 'Taken' }],
    ['POST', `/users/@me/projects/${projectA}/regenerate-keys`],
    ['POST', `/users/@me/projects/${projectA}/reset`],
    ['DELETE', `/users/@me/projects/${projectA}`],
  ];
  const leaks: string[] = [];
  for (const [method, path, body] of routes) {
    const byKey = await call(stamp.url, projectB.secretKey, method, path, body);
    const bySession = await call(stamp.url, undefined, method, path, body, {
      cookie,
      origin: ORIGIN,
      'x-project-id': projectA,
    });
    // A route naming project A in its path tells B's key 403 PROJECT_ACCESS_DENIED before it
    // looks the project up; every other answer is 404.
    const keyStatus = path.includes(projectA) ? 403 : 404;
    for (const [who, response, status] of [
      ['B key', byKey, keyStatus],
      ['outsider session', bySession, 404],
    ] as const) {
      const code = (response.body as { error?: { code?: string } } | undefined)?.error?.code;
      if (response.status !== status || code === undefined) {
        leaks.push(`${who} ${method} ${path}: ${response.status} ${JSON.stringify(response.body)}`);
      }
    }
  }
  expect(leaks).toEqual([]);

  // Nothing of A changed.
  for (const path of [
    `/contacts/${contact.id}`,
    `/templates/${template.id}`,
    `/campaigns/${campaign.id}`,
    `/segments/${segment.id}`,
    `/workflows/${workflow.id}`,
    `/webhook-endpoints/${endpoint.id}`,
    `/emails/${email}`,
  ]) {
    const found = await a('GET', path);
    expect(found.status).toBe(200);
    expect(JSON.stringify(found.body)).not.toContain('Taken');
  }
  expect((await a('GET', `/domains/${domain?.id ?? ''}/verify`)).status).toBe(200);
  expect(itemsOf((await a('GET', '/contacts')).body)).toHaveLength(1);
  expect(itemsOf((await call(stamp.url, projectB.secretKey, 'GET', '/templates')).body)).toEqual(
    [],
  );
}, 60_000);

/** The items of a list answer (`data`, or the array itself). */
function itemsOf(body: unknown): unknown[] {
  if (Array.isArray(body)) return body;
  const items = (body as { data?: unknown }).data;
  if (!Array.isArray(items)) throw new Error(`not a list: ${JSON.stringify(body)}`);
  return items;
}
