import { Resolver } from 'node:dns/promises';

import { Plunk } from '@plunk/node/dist/lib/Plunk.js';
import { startDnsServer, type TestDnsServer } from '@stamp/testkit/dns-server.ts';
import { startSmtpSink } from '@stamp/testkit/smtp-sink.ts';
import { authenticate } from 'mailauth';
import { simpleParser } from 'mailparser';

import type { Stamp } from './app.ts';
import { call, startTestStamp, TEST_KEYS } from './testing.ts';

interface DomainRecord {
  type: string;
  name: string;
  value: string;
  purpose: string;
}

type Sink = Awaited<ReturnType<typeof startSmtpSink>>;

describe('the main job end to end: send, track, verify on embedded defaults', () => {
  let dns: TestDnsServer;
  let sink: Sink;
  let stamp: Stamp;
  const sk = TEST_KEYS.secretKey;
  const pk = TEST_KEYS.publicKey;

  beforeAll(async () => {
    dns = await startDnsServer({
      'acme.test': {
        MX: [{ exchange: 'mx.acme.test', priority: 10 }],
        A: ['127.0.0.9'],
        NS: ['ns.acme.test'],
      },
    });
    sink = await startSmtpSink();
    stamp = await startTestStamp({ STAMP_SMTP_URL: sink.url, STAMP_DNS_SERVERS: dns.address });
  });

  afterAll(async () => {
    await stamp.close();
    await sink.close();
    await dns.close();
  });

  it('delivers a templated, DKIM-signed email from a verified domain to a real SMTP server', async () => {
    const added = await call(stamp.url, sk, 'POST', '/domains', { domain: 'acme.test' });
    expect(added.status).toBe(201);
    const domain = added.body as { id: string; records: DomainRecord[] };
    const dkim = domain.records.find((record) => record.purpose === 'DKIM')!;
    dns.set(dkim.name, { TXT: [dkim.value] });
    const verified = await call(stamp.url, sk, 'GET', `/domains/${domain.id}/verify`);
    expect(verified.body).toMatchObject({ verified: true, status: 'VERIFIED' });

    const template = await call(stamp.url, sk, 'POST', '/templates', {
      name: 'Welcome',
      subject: 'Welcome, {{ name ?? friend }}',
      body: '<p>Hi {{ name }}, your plan is {{ plan }} and your id is {{ stamp_id }}.</p>',
      type: 'TRANSACTIONAL',
      from: 'hello@acme.test',
    });
    expect(template.status).toBe(201);
    const templateId = (template.body as { id: string }).id;

    const sent = await call(stamp.url, sk, 'POST', '/v1/send', {
      to: { name: 'Ada <script>', email: 'ada@example.org' },
      template: templateId,
      data: { plan: 'pro', coupon: { value: 'ONCE', persistent: false } },
      headers: { 'X-Campaign': 'welcome' },
    });
    expect(sent.status).toBe(200);
    const data = (
      sent.body as {
        success: boolean;
        data: { emails: { contact: { id: string; email: string }; email: string }[] };
      }
    ).data;
    expect(data.emails).toHaveLength(1);
    const [email] = data.emails;

    await sink.waitFor(1, 10_000);
    const message = sink.messages[0]!;
    expect(message.envelope.to).toEqual(['ada@example.org']);
    const parsed = await simpleParser(message.raw);
    expect(parsed.subject).toBe('Welcome, Ada <script>');
    expect(parsed.html).toContain('Hi Ada &lt;script&gt;, your plan is pro');
    expect(parsed.html).toContain(email!.contact.id);
    expect(parsed.headers.get('x-campaign')).toBe('welcome');
    expect(parsed.headers.get('x-stamp-email-id')).toBe(email!.email);

    const resolver = new Resolver();
    resolver.setServers([dns.address]);
    const auth = await authenticate(message.raw, {
      sender: 'hello@acme.test',
      ip: '127.0.0.1',
      helo: 'localhost',
      mta: 'sink.test',
      resolver: (name: string, rr: string) =>
        rr === 'TXT' ? resolver.resolveTxt(name) : resolver.resolve4(name),
    });
    const results = auth.dkim.results as { status: { result: string }; signingDomain: string }[];
    expect(results.map((result) => [result.signingDomain, result.status.result])).toEqual([
      ['acme.test', 'pass'],
    ]);

    const contact = await call(stamp.url, sk, 'GET', `/contacts/${email!.contact.id}`);
    expect(contact.body).toMatchObject({
      email: 'ada@example.org',
      subscribed: false,
      data: { plan: 'pro', name: 'Ada <script>' },
    });
    expect((contact.body as { data: Record<string, unknown> }).data.coupon).toBeUndefined();
  });

  it('works with the Plunk Node SDK unchanged (send and track)', async () => {
    const before = sink.messages.length;
    const secret = new Plunk(sk, { baseUrl: `${stamp.url}/v1/` });
    await expect(
      secret.emails.send({
        to: 'grace@example.org',
        subject: 'Hello',
        body: '<b>Hi</b>',
        from: 'hello@acme.test',
      }),
    ).resolves.toMatchObject({ success: true });
    await sink.waitFor(before + 1, 10_000);

    const browser = new Plunk(pk, { baseUrl: `${stamp.url}/v1/` });
    await expect(
      browser.events.track({
        event: 'signed-up',
        email: 'grace@example.org',
        data: { plan: 'team' },
      }),
    ).resolves.toMatchObject({ success: true });
    await expect(
      browser.emails.send({
        to: 'x@example.org',
        subject: 'No',
        body: 'No',
        from: 'hello@acme.test',
      }),
    ).rejects.toThrow();
  });

  it('tracks an event with a public key and creates a subscribed contact', async () => {
    const tracked = await call(stamp.url, pk, 'POST', '/v1/track', {
      event: 'opened-app',
      email: 'lin@example.org',
      data: { source: 'ios' },
    });
    expect(tracked.status).toBe(200);
    const body = tracked.body as {
      success: boolean;
      data: { contact: string; event: string; timestamp: string };
    };
    expect(body.success).toBe(true);
    const contact = await call(stamp.url, sk, 'GET', `/contacts/${body.data.contact}`);
    expect(contact.body).toMatchObject({
      email: 'lin@example.org',
      subscribed: true,
      data: { source: 'ios' },
    });
  });

  it('verifies an address through the configured DNS server', async () => {
    const result = await call(stamp.url, sk, 'POST', '/v1/verify', { email: 'someone@acme.test' });
    expect(result.status).toBe(200);
    expect(result.body).toMatchObject({
      success: true,
      data: { email: 'someone@acme.test', valid: true, hasMxRecords: true, domainExists: true },
    });
    const missing = await call(stamp.url, sk, 'POST', '/v1/verify', {
      email: 'someone@nowhere.test',
    });
    expect(missing.body).toMatchObject({ data: { valid: false, domainExists: false } });
  });

  it('lets a newcomer without a domain send to the local outbox from the sandbox sender', async () => {
    const before = sink.messages.length;
    const sent = await call(stamp.url, sk, 'POST', '/v1/send', {
      to: 'me@example.org',
      subject: 'First email',
      body: '<p>It works</p>',
      from: 'onboarding@sandbox.stamp.localhost',
    });
    expect(sent.status).toBe(200);
    const emailId = (sent.body as { data: { emails: { email: string }[] } }).data.emails[0]!.email;
    let captured: { status: number; body: unknown } = { status: 0, body: undefined };
    for (let attempt = 0; attempt < 100 && captured.status !== 200; attempt++) {
      captured = await call(stamp.url, sk, 'GET', `/outbox/${emailId}`);
      if (captured.status !== 200) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(captured.body).toMatchObject({ to: 'me@example.org', subject: 'First email' });
    expect(sink.messages.length).toBe(before);
  });

  it('refuses an unverified sender domain with 403', async () => {
    const sent = await call(stamp.url, sk, 'POST', '/v1/send', {
      to: 'a@example.org',
      subject: 's',
      body: 'b',
      from: 'x@unverified.test',
    });
    expect(sent.status).toBe(403);
    expect(sent.body).toMatchObject({ success: false, error: { code: 'DOMAIN_NOT_VERIFIED' } });
  });

  it('regenerates keys: the old ones fail at once, the new ones work', async () => {
    const projectId = stamp.bootstrap.projectId;
    const regenerated = await call(
      stamp.url,
      sk,
      'POST',
      `/users/@me/projects/${projectId}/regenerate-keys`,
    );
    expect(regenerated.status).toBe(200);
    const keys = regenerated.body as { publicKey: string; secretKey: string };
    expect((await call(stamp.url, sk, 'GET', '/contacts')).status).toBe(401);
    expect(
      (await call(stamp.url, pk, 'POST', '/v1/track', { event: 'e', email: 'a@example.org' }))
        .status,
    ).toBe(401);
    expect((await call(stamp.url, keys.secretKey, 'GET', '/contacts')).status).toBe(200);
    expect(
      (
        await call(stamp.url, keys.publicKey, 'POST', '/v1/track', {
          event: 'e',
          email: 'a@example.org',
        })
      ).status,
    ).toBe(200);
  });
});
