/**
 * Billing over real sockets on the embedded platform (spec part 4 "Users, projects,
 * configuration"; API reference: 402 BILLING_LIMIT_EXCEEDED, 400 BILLING_NOT_CONFIGURED, billing
 * categories): caps read and written with validation, sends refused over their category's cap
 * before anything is stored (concurrent ones too), a campaign and a workflow step stopped at
 * theirs with the reason, the consumption of the month, the roles allowed, and Stripe: its
 * webhook verified with the SDK's own signatures, checkout, portal and invoices against a
 * stand-in for Stripe's API on loopback.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { startDnsServer, type TestDnsServer } from '@stamp/testkit/dns-server.ts';
import { eventually } from '@stamp/testkit/eventually.ts';
import { freePort, type JsonResponse } from '@stamp/testkit/net.ts';
import nodemailer from 'nodemailer';
import Stripe from 'stripe';

import type { Stamp } from './app.ts';
import { addVerifiedDomain, call, startTestStamp, TEST_KEYS } from './testing.ts';

const ORIGIN = 'http://dashboard.test';
const sk = TEST_KEYS.secretKey;
const FROM = 'billing@sandbox.stamp.localhost';

interface Limits {
  transactional: number | null;
  campaigns: number | null;
  workflows: number | null;
  inbound: number | null;
}

interface Consumption {
  period: { start: string; end: string; timezone: string };
  usage: Record<keyof Limits, number>;
  limits: Limits;
  remaining: Record<keyof Limits, number | null>;
}

/** The session cookie (`name=value`) a response sets. */
function sessionOf(response: JsonResponse): string {
  const cookie = response.headers
    .getSetCookie()
    .find((value) => value.startsWith('stamp_session='));
  return cookie?.split(';')[0] ?? '';
}

describe('billing caps (no payment provider configured)', () => {
  let stamp: Stamp;
  let project: string;
  const api = (method: string, path: string, body?: unknown) =>
    call(stamp.url, sk, method, path, body);
  const limitsPath = () => `/users/@me/projects/${project}/billing-limits`;
  const consumption = async (): Promise<Consumption> =>
    (await api('GET', `/users/@me/projects/${project}/billing-consumption`)).body as Consumption;
  const sendTo = (to: string | string[], subject = 'Hello') =>
    api('POST', '/v1/send', { to, from: FROM, subject, body: '<p>Hi</p>' });

  beforeAll(async () => {
    stamp = await startTestStamp({ STAMP_PUBLIC_URL: ORIGIN });
    project = stamp.bootstrap.projectId;
  });

  afterAll(async () => {
    await stamp.close();
  });

  it('says billing is off, and answers BILLING_NOT_CONFIGURED to the provider routes', async () => {
    const config = await call(stamp.url, undefined, 'GET', '/config');
    expect(config.body).toMatchObject({ features: { billing: false } });
    for (const [method, path] of [
      ['POST', `/users/@me/projects/${project}/checkout`],
      ['POST', `/users/@me/projects/${project}/billing-portal`],
      ['GET', `/users/@me/projects/${project}/billing-invoices`],
    ] as const) {
      const response = await api(method, path, method === 'POST' ? {} : undefined);
      expect([path, response.status]).toEqual([path, 400]);
      expect(response.body).toMatchObject({
        success: false,
        error: { code: 'BILLING_NOT_CONFIGURED', statusCode: 400 },
      });
    }
    const webhook = await fetch(`${stamp.url}/webhooks/incoming/stripe`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'stripe-signature': 't=1,v1=00' },
      body: '{}',
    });
    expect(webhook.status).toBe(400);
    expect(await webhook.json()).toMatchObject({ error: { code: 'BILLING_NOT_CONFIGURED' } });
  });

  it('reads and writes caps, refusing what is not a cap with 422', async () => {
    const initial = await api('GET', limitsPath());
    expect(initial.status).toBe(200);
    expect(initial.body).toMatchObject({
      projectId: project,
      limits: { transactional: null, campaigns: null, workflows: null, inbound: null },
      planLimits: null,
      subscription: null,
      period: { timezone: 'UTC' },
    });
    for (const body of [
      { transactional: -1 },
      { transactional: 1.5 },
      { transactional: '10' },
      { newsletters: 10 },
      {},
      [],
    ]) {
      const refused = await api('PUT', limitsPath(), body);
      expect([JSON.stringify(body), refused.status]).toEqual([JSON.stringify(body), 422]);
      expect(refused.body).toMatchObject({ success: false, error: { code: 'VALIDATION_ERROR' } });
    }
    const set = await api('PUT', limitsPath(), { transactional: 3, inbound: 0 });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({
      limits: { transactional: 3, campaigns: null, workflows: null, inbound: 0 },
      manualLimits: { transactional: 3, inbound: 0 },
      updatedAt: expect.any(String) as string,
    });
    expect((await api('GET', limitsPath())).body).toMatchObject({
      limits: { transactional: 3, inbound: 0 },
    });
  });

  it('accepts sends within the transactional cap and refuses the one passing it with 402, storing nothing', async () => {
    expect((await sendTo(['one@example.org', 'two@example.org'], 'Within')).status).toBe(200);
    // Two more would pass the cap of 3: neither is accepted, not even the first.
    const refused = await sendTo(['three@example.org', 'four@example.org'], 'Over');
    expect(refused.status).toBe(402);
    expect(refused.body).toMatchObject({
      success: false,
      error: {
        code: 'BILLING_LIMIT_EXCEEDED',
        statusCode: 402,
        message: expect.stringContaining('transactional cap is 3') as string,
      },
    });
    expect((await sendTo('three@example.org', 'Last')).status).toBe(200);
    expect((await sendTo('five@example.org', 'Over')).status).toBe(402);

    const lookup = await api('POST', '/contacts/lookup', {
      emails: ['four@example.org', 'five@example.org'],
    });
    expect(lookup.body).toMatchObject({ found: 0 });
    await eventually('the three accepted emails in the outbox', async () => {
      const outbox = JSON.stringify((await api('GET', '/outbox?limit=100')).body);
      return (outbox.match(/"subject":"(Within|Last)"/g) ?? []).length === 3 ? true : undefined;
    });
    expect(JSON.stringify((await api('GET', '/outbox?limit=100')).body)).not.toContain('"Over"');

    const used = await consumption();
    expect(used.usage).toEqual({ transactional: 3, campaigns: 0, workflows: 0, inbound: 0 });
    expect(used.remaining).toEqual({
      transactional: 0,
      campaigns: null,
      workflows: null,
      inbound: 0,
    });
    const month = new Date().toISOString().slice(0, 7);
    expect(used.period).toEqual({
      start: `${month}-01T00:00:00.000Z`,
      end: expect.stringMatching(/^\d{4}-\d{2}-01T00:00:00\.000Z$/) as string,
      timezone: 'UTC',
    });
  });

  it('never lets concurrent sends pass the cap together', async () => {
    expect((await api('PUT', limitsPath(), { transactional: 8 })).status).toBe(200);
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, index) => sendTo(`burst${index}@example.org`, 'Burst')),
    );
    const statuses = answers.map((answer) => answer.status).sort();
    expect(statuses).toEqual([...Array<number>(5).fill(200), ...Array<number>(7).fill(402)]);
    expect((await consumption()).usage.transactional).toBe(8);
  });

  it('removes a cap with null', async () => {
    expect((await sendTo('after@example.org')).status).toBe(402);
    const lifted = await api('PUT', limitsPath(), { transactional: null });
    expect(lifted.body).toMatchObject({ limits: { transactional: null } });
    expect((await sendTo('after@example.org')).status).toBe(200);
    expect((await consumption()).remaining.transactional).toBeNull();
  });

  it('stops a campaign at its cap, with the reason on the campaign', async () => {
    for (const name of ['c1', 'c2', 'c3', 'c4', 'c5']) {
      const made = await api('POST', '/contacts', {
        email: `${name}@example.org`,
        subscribed: true,
      });
      expect(made.status).toBe(201);
    }
    expect((await api('PUT', limitsPath(), { campaigns: 2 })).status).toBe(200);
    const created = await api('POST', '/campaigns', {
      name: 'Capped',
      subject: 'Capped news',
      body: '<p>News</p>',
      from: FROM,
      audienceType: 'ALL',
    });
    expect(created.status).toBe(201);
    const id = (created.body as { data: { id: string } }).data.id;
    expect((await api('POST', `/campaigns/${id}/send`, {})).status).toBeLessThan(300);
    const stopped = await eventually('the campaign stopped', async () => {
      const campaign = (await api('GET', `/campaigns/${id}`)).body as {
        status: string;
        cancelReason: string | null;
      };
      return campaign.status === 'CANCELLED' ? campaign : undefined;
    });
    expect(stopped.cancelReason).toMatch(/Billing limit exceeded.*campaigns cap is 2/);
    const used = await eventually('two campaign emails counted', async () => {
      const now = await consumption();
      return now.usage.campaigns === 2 ? now : undefined;
    });
    expect(used.remaining.campaigns).toBe(0);
    await eventually('two campaign emails in the outbox', async () => {
      const outbox = JSON.stringify((await api('GET', '/outbox?limit=100')).body);
      return (outbox.match(/"subject":"Capped news"/g) ?? []).length === 2 ? true : undefined;
    });
  });

  it('fails a workflow email step over its cap, with the reason on the execution', async () => {
    expect((await api('PUT', limitsPath(), { workflows: 0 })).status).toBe(200);
    const template = await api('POST', '/templates', {
      name: 'Step',
      type: 'TRANSACTIONAL',
      from: FROM,
      subject: 'From a step',
      body: '<p>Step</p>',
    });
    const templateId = (template.body as { id: string }).id;
    const workflow = (await api('POST', '/workflows', { name: 'Capped', eventName: 'capped' }))
      .body as { id: string; steps: { id: string }[] };
    const base = `/workflows/${workflow.id}`;
    const step = (
      await api('POST', `${base}/steps`, { type: 'SEND_EMAIL', config: { templateId } })
    ).body as { id: string };
    await api('POST', `${base}/transitions`, {
      fromStepId: workflow.steps[0]!.id,
      toStepId: step.id,
    });
    const contact = (await api('POST', '/contacts', { email: 'flow@example.org' })).body as {
      id: string;
    };
    const started = await api('POST', `${base}/executions`, { contactId: contact.id });
    expect(started.status).toBe(201);
    const failed = await eventually('the execution failed', async () => {
      const found = (await api('GET', `${base}/executions/${(started.body as { id: string }).id}`))
        .body as { status: string; error: string | null };
      return found.status === 'FAILED' ? found : undefined;
    });
    expect(failed.error).toMatch(/Billing limit exceeded.*workflows cap is 0/);
    expect((await consumption()).usage.workflows).toBe(0);
  });

  it('lets OWNER and ADMIN manage billing, never a MEMBER, and hides other projects', async () => {
    const signup = async (email: string): Promise<{ cookie: string; id: string }> => {
      const response = await call(stamp.url, undefined, 'POST', '/auth/signup', {
        email,
        password: 'correct horse battery',
      });
      expect(response.status).toBe(201);
      return { cookie: sessionOf(response), id: (response.body as { id: string }).id };
    };
    const owner = await signup('owner@example.org');
    const member = await signup('member@example.org');
    const as = (cookie: string, method: string, path: string, body?: unknown) =>
      call(stamp.url, undefined, method, path, body, { cookie, origin: ORIGIN });
    const added = await as(owner.cookie, 'POST', `/projects/${project}/members`, {
      email: 'member@example.org',
      role: 'MEMBER',
    });
    expect(added.status).toBe(201);

    expect((await as(owner.cookie, 'GET', limitsPath())).status).toBe(200);
    for (const [method, path, body] of [
      ['GET', limitsPath(), undefined],
      ['PUT', limitsPath(), { transactional: 1 }],
      ['GET', `/users/@me/projects/${project}/billing-consumption`, undefined],
      ['POST', `/users/@me/projects/${project}/checkout`, {}],
      ['GET', `/users/@me/projects/${project}/billing-invoices`, undefined],
    ] as const) {
      const refused = await as(member.cookie, method, path, body);
      expect([method, path, refused.status]).toEqual([method, path, 403]);
      expect(refused.body).toMatchObject({ error: { code: 'FORBIDDEN' } });
    }

    const promoted = await as(owner.cookie, 'PATCH', `/projects/${project}/members/${member.id}`, {
      role: 'ADMIN',
    });
    expect(promoted.status).toBe(200);
    const admin = await as(member.cookie, 'PUT', limitsPath(), { inbound: 10 });
    expect(admin.status).toBe(200);
    expect(admin.body).toMatchObject({ limits: { inbound: 10 } });

    // Another project: 404 to a user who is not its member, as an unknown one; the default
    // project's key is refused every other project (403 PROJECT_ACCESS_DENIED).
    const other = await as(member.cookie, 'POST', '/users/@me/projects', { name: 'Other' });
    const otherId = (other.body as { id: string }).id;
    expect(
      (await as(member.cookie, 'GET', `/users/@me/projects/${otherId}/billing-limits`)).status,
    ).toBe(200);
    for (const [method, path, body] of [
      ['GET', `/users/@me/projects/${otherId}/billing-limits`, undefined],
      ['PUT', `/users/@me/projects/${otherId}/billing-limits`, { inbound: 1 }],
      ['GET', `/users/@me/projects/${otherId}/billing-consumption`, undefined],
      ['GET', '/users/@me/projects/00000000-0000-7000-8000-000000000000/billing-limits', undefined],
    ] as const) {
      const hidden = await as(owner.cookie, method, path, body);
      expect([method, path, hidden.status]).toEqual([method, path, 404]);
    }
    const keyed = await api('PUT', `/users/@me/projects/${otherId}/billing-limits`, { inbound: 1 });
    expect(keyed.status).toBe(403);
    expect(keyed.body).toMatchObject({ error: { code: 'PROJECT_ACCESS_DENIED' } });
    expect(
      (await as(member.cookie, 'GET', `/users/@me/projects/${otherId}/billing-limits`)).body,
    ).toMatchObject({
      limits: { inbound: null },
    });
  });
});

describe('inbound mail over its cap', () => {
  let dns: TestDnsServer;
  let stamp: Stamp;
  let port: number;
  const api = (method: string, path: string, body?: unknown) =>
    call(stamp.url, sk, method, path, body);

  beforeAll(async () => {
    dns = await startDnsServer({});
    port = await freePort();
    stamp = await startTestStamp({
      STAMP_DNS_SERVERS: dns.address,
      STAMP_INBOUND_SMTP_PORT: String(port),
    });
    await addVerifiedDomain(stamp.url, dns, 'inbound.test');
  }, 60_000);

  afterAll(async () => {
    await stamp.close();
    await dns.close();
  });

  /** Delivers a message to support@inbound.test with a real SMTP client. */
  async function deliver(subject: string): Promise<void> {
    const transport = nodemailer.createTransport({
      host: '127.0.0.1',
      port,
      secure: false,
      ignoreTLS: true,
    });
    try {
      await transport.sendMail({
        from: 'customer@example.org',
        to: 'support@inbound.test',
        subject,
        text: 'Hello',
      });
    } finally {
      transport.close();
    }
  }

  it('refuses mail for a project past its inbound cap with 452, recording nothing', async () => {
    const project = stamp.bootstrap.projectId;
    const limits = `/users/@me/projects/${project}/billing-limits`;
    expect((await api('PUT', limits, { inbound: 1 })).status).toBe(200);
    await deliver('First');
    await eventually('the first message counted', async () => {
      const used = (await api('GET', `/users/@me/projects/${project}/billing-consumption`))
        .body as Consumption;
      return used.usage.inbound === 1 ? true : undefined;
    });
    await expect(deliver('Second')).rejects.toThrow(/452/);
    const listed = (await api('GET', '/inbound')).body as { data: { subject: string }[] };
    expect(listed.data.map((message) => message.subject)).toEqual(['First']);

    expect((await api('PUT', limits, { inbound: null })).status).toBe(200);
    await deliver('Third');
    await eventually('the third message', async () => {
      const page = (await api('GET', '/inbound')).body as { data: unknown[] };
      return page.data.length === 2 ? true : undefined;
    });
  }, 60_000);
});

/** A request the Stripe stand-in received. */
interface StandInRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  form: URLSearchParams;
}

/**
 * A stand-in for Stripe's API (not Stripe): an HTTP server on loopback answering the three
 * endpoints Stamp calls (Checkout sessions, billing portal sessions, invoices) with the shapes
 * Stripe documents, and recording the requests.
 */
async function startStripeStandIn(): Promise<{
  url: string;
  requests: StandInRequest[];
  close(): Promise<void>;
}> {
  const requests: StandInRequest[] = [];
  const read = async (req: IncomingMessage): Promise<string> => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  };
  const server: Server = createServer((req, res) => {
    void read(req).then((body) => {
      const url = new URL(req.url ?? '/', 'http://stand-in');
      requests.push({
        method: req.method ?? '',
        path: url.pathname,
        query: url.searchParams,
        form: new URLSearchParams(body),
      });
      const answer = (status: number, value: unknown): void => {
        res.writeHead(status, { 'content-type': 'application/json', 'request-id': 'req_standin' });
        res.end(JSON.stringify(value));
      };
      if (req.headers.authorization !== 'Bearer sk_test_standin0123456789') {
        answer(401, { error: { type: 'invalid_request_error', message: 'Invalid API Key' } });
        return;
      }
      if (req.method === 'POST' && url.pathname === '/v1/checkout/sessions') {
        answer(200, {
          id: 'cs_test_1',
          object: 'checkout.session',
          mode: 'subscription',
          url: 'https://checkout.stripe.test/c/pay/cs_test_1',
        });
      } else if (req.method === 'POST' && url.pathname === '/v1/billing_portal/sessions') {
        answer(200, {
          id: 'bps_1',
          object: 'billing_portal.session',
          url: 'https://billing.stripe.test/p/session/bps_1',
        });
      } else if (req.method === 'GET' && url.pathname === '/v1/invoices') {
        answer(200, {
          object: 'list',
          url: '/v1/invoices',
          has_more: true,
          data: [
            {
              id: 'in_2',
              object: 'invoice',
              number: 'STAMP-0002',
              status: 'paid',
              currency: 'eur',
              total: 2900,
              amount_due: 2900,
              amount_paid: 2900,
              created: 1_740_787_200,
              period_start: 1_738_368_000,
              period_end: 1_740_787_200,
              hosted_invoice_url: 'https://invoice.stripe.test/i/in_2',
              invoice_pdf: 'https://invoice.stripe.test/i/in_2/pdf',
            },
          ],
        });
      } else {
        answer(404, {
          error: { type: 'invalid_request_error', message: 'Unrecognized request URL' },
        });
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.close(() => {
          resolve();
        });
      }),
  };
}

describe('billing with Stripe', () => {
  const WEBHOOK_SECRET = 'whsec_testsecret0123456789';
  const PRO = { transactional: 5, campaigns: 100, workflows: null, inbound: 10 };
  let stripe: Awaited<ReturnType<typeof startStripeStandIn>>;
  let stamp: Stamp;
  let project: string;
  const api = (method: string, path: string, body?: unknown) =>
    call(stamp.url, sk, method, path, body);
  const base = () => `/users/@me/projects/${project}`;
  /** The events of the project stream. */
  const projectEvents = async () =>
    (await stamp.platform.store.readStream(`project-${project}`)).map((event) => event.type);

  /** Posts a Stripe event to the webhook, signed with `secret` by the SDK. */
  async function deliver(event: object, secret = WEBHOOK_SECRET): Promise<JsonResponse> {
    const payload = JSON.stringify(event);
    const signature = Stripe.webhooks.generateTestHeaderString({ payload, secret });
    const response = await fetch(`${stamp.url}/webhooks/incoming/stripe`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'stripe-signature': signature },
      body: payload,
    });
    return { status: response.status, body: await response.json(), headers: response.headers };
  }

  const event = (
    id: string,
    type: string,
    object: object,
    created = Math.floor(Date.now() / 1000),
  ) => ({
    id,
    object: 'event',
    api_version: '2025-01-01',
    created,
    livemode: false,
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
    type,
    data: { object },
  });

  beforeAll(async () => {
    stripe = await startStripeStandIn();
    stamp = await startTestStamp({
      STAMP_PUBLIC_URL: ORIGIN,
      STAMP_STRIPE_SECRET_KEY: 'sk_test_standin0123456789',
      STAMP_STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
      STAMP_STRIPE_PRICE_ID: 'price_pro',
      STAMP_STRIPE_PLANS: JSON.stringify({ price_pro: PRO }),
      STAMP_STRIPE_API_BASE: stripe.url,
    });
    project = stamp.bootstrap.projectId;
  });

  afterAll(async () => {
    await stamp.close();
    await stripe.close();
  });

  it('says billing is on, and opens a checkout for the configured price', async () => {
    const config = await call(stamp.url, undefined, 'GET', '/config');
    expect(config.body).toMatchObject({ features: { billing: true } });

    // Before a subscription: no portal, no invoices.
    expect((await api('POST', `${base()}/billing-portal`, {})).status).toBe(400);
    expect((await api('GET', `${base()}/billing-invoices`)).body).toEqual({
      invoices: [],
      cursor: null,
    });
    expect((await api('POST', `${base()}/checkout`, { priceId: 'price_unknown' })).status).toBe(
      422,
    );
    expect(
      (await api('POST', `${base()}/checkout`, { successUrl: 'https://elsewhere.test/' })).status,
    ).toBe(422);

    const checkout = await api('POST', `${base()}/checkout`, {});
    expect(checkout.status).toBe(200);
    expect(checkout.body).toEqual({
      id: 'cs_test_1',
      url: 'https://checkout.stripe.test/c/pay/cs_test_1',
    });
    const sent = stripe.requests.find((request) => request.path === '/v1/checkout/sessions');
    expect(sent?.form.get('mode')).toBe('subscription');
    expect(sent?.form.get('line_items[0][price]')).toBe('price_pro');
    expect(sent?.form.get('client_reference_id')).toBe(project);
    expect(sent?.form.get('subscription_data[metadata][projectId]')).toBe(project);
    expect(sent?.form.get('success_url')).toBe(`${ORIGIN}/?checkout=success`);
  });

  it('refuses a notification with a bad signature with 400, recording nothing', async () => {
    const before = await projectEvents();
    const completed = event('evt_forged', 'checkout.session.completed', {
      id: 'cs_test_1',
      object: 'checkout.session',
      mode: 'subscription',
      customer: 'cus_1',
      subscription: 'sub_1',
      client_reference_id: project,
      metadata: { projectId: project, priceId: 'price_pro' },
      payment_status: 'paid',
    });
    const forged = await deliver(completed, 'whsec_anothersecret0123456789');
    expect(forged.status).toBe(400);
    expect(forged.body).toMatchObject({ success: false, error: { code: 'BAD_REQUEST' } });
    const unsigned = await fetch(`${stamp.url}/webhooks/incoming/stripe`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(completed),
    });
    expect(unsigned.status).toBe(400);
    expect(await projectEvents()).toEqual(before);
    expect((await api('GET', `${base()}/billing-limits`)).body).toMatchObject({
      planLimits: null,
      subscription: null,
    });
  });

  it('raises the caps on a completed checkout, once for a redelivery, and lowers them when the subscription ends', async () => {
    expect((await api('PUT', `${base()}/billing-limits`, { inbound: 3 })).status).toBe(200);
    const completed = event('evt_checkout', 'checkout.session.completed', {
      id: 'cs_test_1',
      object: 'checkout.session',
      mode: 'subscription',
      customer: 'cus_1',
      subscription: 'sub_1',
      client_reference_id: project,
      metadata: { projectId: project, priceId: 'price_pro' },
      payment_status: 'paid',
    });
    const first = await deliver(completed);
    expect(first).toMatchObject({ status: 200, body: { received: true, recorded: true } });
    const subscribed = (await api('GET', `${base()}/billing-limits`)).body;
    expect(subscribed).toMatchObject({
      limits: { ...PRO, inbound: 3 },
      planLimits: PRO,
      subscription: { status: 'active', active: true, priceId: 'price_pro' },
    });
    const recorded = await projectEvents();

    const again = await deliver(completed);
    expect(again).toMatchObject({ status: 200, body: { recorded: false, duplicate: true } });
    expect(await projectEvents()).toEqual(recorded);

    // The plan's transactional cap of 5 is enforced.
    const send = (to: string) =>
      api('POST', '/v1/send', { to, from: FROM, subject: 'Plan', body: '<p>Plan</p>' });
    for (let index = 0; index < 5; index++) {
      expect((await send(`plan${index}@example.org`)).status).toBe(200);
    }
    expect((await send('plan5@example.org')).status).toBe(402);

    // Portal and invoices of the customer the checkout made.
    const portal = await api('POST', `${base()}/billing-portal`, {
      returnUrl: `${ORIGIN}/billing`,
    });
    expect(portal.body).toEqual({ url: 'https://billing.stripe.test/p/session/bps_1' });
    const portalRequest = stripe.requests.find(
      (request) => request.path === '/v1/billing_portal/sessions',
    );
    expect(portalRequest?.form.get('customer')).toBe('cus_1');
    expect(portalRequest?.form.get('return_url')).toBe(`${ORIGIN}/billing`);
    const invoices = await api('GET', `${base()}/billing-invoices?limit=1`);
    expect(invoices.body).toEqual({
      invoices: [
        {
          id: 'in_2',
          number: 'STAMP-0002',
          status: 'paid',
          currency: 'eur',
          total: 2900,
          amountDue: 2900,
          amountPaid: 2900,
          createdAt: '2025-03-01T00:00:00.000Z',
          periodStart: '2025-02-01T00:00:00.000Z',
          periodEnd: '2025-03-01T00:00:00.000Z',
          hostedInvoiceUrl: 'https://invoice.stripe.test/i/in_2',
          invoicePdf: 'https://invoice.stripe.test/i/in_2/pdf',
        },
      ],
      cursor: 'in_2',
    });
    const listed = stripe.requests.find((request) => request.path === '/v1/invoices');
    expect(listed?.query.get('customer')).toBe('cus_1');
    expect(listed?.query.get('limit')).toBe('1');
    expect((await api('GET', `${base()}/billing-invoices?cursor=x`)).status).toBe(422);

    // The subscription ends: the caps set by hand apply again, and the send passes.
    const ended = await deliver(
      event(
        'evt_deleted',
        'customer.subscription.deleted',
        {
          id: 'sub_1',
          object: 'subscription',
          customer: 'cus_1',
          status: 'canceled',
          metadata: { projectId: project },
          items: { object: 'list', data: [{ id: 'si_1', price: { id: 'price_pro' } }] },
        },
        Math.floor(Date.now() / 1000) + 1,
      ),
    );
    expect(ended).toMatchObject({ status: 200, body: { recorded: true } });
    expect((await api('GET', `${base()}/billing-limits`)).body).toMatchObject({
      limits: { transactional: null, campaigns: null, workflows: null, inbound: 3 },
      planLimits: null,
      subscription: { status: 'canceled', active: false },
    });
    expect((await send('plan5@example.org')).status).toBe(200);
  });

  it('finds the project of a subscription by its customer, and ignores other events', async () => {
    const updated = await deliver(
      event(
        'evt_updated',
        'customer.subscription.updated',
        {
          id: 'sub_2',
          object: 'subscription',
          customer: 'cus_1',
          status: 'active',
          metadata: {},
          items: { object: 'list', data: [{ id: 'si_2', price: { id: 'price_pro' } }] },
        },
        Math.floor(Date.now() / 1000) + 2,
      ),
    );
    expect(updated).toMatchObject({ status: 200, body: { recorded: true } });
    expect((await api('GET', `${base()}/billing-limits`)).body).toMatchObject({
      planLimits: PRO,
      subscription: { active: true },
    });
    const other = await deliver(
      event('evt_other', 'invoice.paid', { id: 'in_3', object: 'invoice' }),
    );
    expect(other).toMatchObject({ status: 200, body: { received: true, recorded: false } });
    const stranger = await deliver(
      event('evt_stranger', 'customer.subscription.updated', {
        id: 'sub_9',
        object: 'subscription',
        customer: 'cus_unknown',
        status: 'active',
        metadata: {},
        items: { object: 'list', data: [] },
      }),
    );
    expect(stranger).toMatchObject({ status: 200, body: { recorded: false } });
  });
});
