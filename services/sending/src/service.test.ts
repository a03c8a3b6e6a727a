import { generateKeyPairSync } from 'node:crypto';

import type {
  ContactsApi,
  ContactValue,
  DomainsApi,
  SenderDomain,
  UpsertRecipientInput,
} from '@stamp/contracts';
import {
  createLogger,
  type EmbeddedPlatform,
  openEmbeddedPlatform,
  Secrets,
  SmtpMailer,
} from '@stamp/platform';
import { serveRouter, type ServedRouter } from '@stamp/testkit/http.ts';
import {
  parseMessage,
  type SmtpSink,
  startSmtpSink,
  verifyDkim,
} from '@stamp/testkit/smtp-sink.ts';

import { createSendingService } from './index.ts';

const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const dkimTxt = {
  'stamp._domainkey.example.test': `v=DKIM1; k=rsa; p=${publicKey
    .export({ type: 'spki', format: 'der' })
    .toString('base64')}`,
};

/** In-memory DomainsApi: example.test verified, unverified.test pending. */
const domains: DomainsApi = {
  receivingDomain: () => Promise.resolve(null),
  senderDomain(projectId, address) {
    const domain = (address.split('@')[1] ?? '').toLowerCase();
    const key = {
      domainName: domain,
      keySelector: 'stamp',
      privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    };
    const known: Record<string, SenderDomain> = {
      'example.test': { domain, verified: true, returnPath: `bounce.${domain}`, dkim: key },
      'unverified.test': { domain, verified: false, returnPath: `bounce.${domain}`, dkim: key },
    };
    return Promise.resolve(projectId === 'p1' ? (known[domain] ?? null) : null);
  },
};

/** In-memory ContactsApi applying the data rules of spec part 2; records the upsert order. */
class MemoryContacts implements ContactsApi {
  readonly contacts = new Map<
    string,
    { id: string; email: string; subscribed: boolean; data: Record<string, ContactValue> }
  >();
  readonly order: string[] = [];

  upsertRecipient(input: UpsertRecipientInput) {
    this.order.push(input.email);
    const key = `${input.projectId}:${input.email.toLowerCase()}`;
    const existing = this.contacts.get(key);
    const contact = existing ?? {
      id: `c${this.contacts.size + 1}`,
      email: input.email,
      subscribed: input.subscribed ?? input.defaultSubscribed,
      data: {},
    };
    if (input.subscribed !== undefined) contact.subscribed = input.subscribed;
    for (const [name, value] of Object.entries(input.data ?? {})) {
      if (value === undefined || value === '') continue;
      if (value === null) {
        contact.data = Object.fromEntries(
          Object.entries(contact.data).filter(([key]) => key !== name),
        );
      } else if (typeof value === 'object') contact.data[name] = value.value;
      else contact.data[name] = value;
    }
    this.contacts.set(key, contact);
    return Promise.resolve({
      contactId: contact.id,
      email: contact.email,
      subscribed: contact.subscribed,
      data: { ...contact.data },
      isNew: existing === undefined,
      position: 0,
    });
  }
}

interface Harness {
  platform: EmbeddedPlatform;
  sink: SmtpSink;
  relay: SmtpMailer;
  contacts: MemoryContacts;
  api: ServedRouter;
  stop(): Promise<void>;
}

async function setup(options: { failFirst?: number } = {}): Promise<Harness> {
  const logger = createLogger({ level: 'silent' });
  const platform = openEmbeddedPlatform({ dataDir: ':memory:', logger });
  const sink = await startSmtpSink(options);
  const relay = new SmtpMailer({ url: sink.url });
  const contacts = new MemoryContacts();
  const service = createSendingService({
    store: platform.store,
    bus: platform.bus,
    views: platform.views,
    leases: platform.leases,
    logger,
    awaitViews: async (position) => {
      await Promise.all(service.projections?.().map((c) => c.waitFor(position, 2000)) ?? []);
    },
    contacts,
    domains,
    relay,
    publicUrl: 'https://stamp.test',
    secrets: new Secrets(Buffer.alloc(32, 7)),
    retry: { baseMs: 50, maxAttempts: 5 },
    timers: { intervalMs: 20 },
  });
  await service.start();
  const api = await serveRouter(service.router ?? (undefined as never), {
    projectId: 'p1',
    keyKind: 'secret',
  });
  return {
    platform,
    sink,
    relay,
    contacts,
    api,
    async stop() {
      await api.close();
      await service.stop();
      await relay.close();
      await sink.close();
      await platform.close();
    },
  };
}

interface SendResponse {
  success: boolean;
  data: { emails: { contact: { id: string; email: string }; email: string }[]; timestamp: string };
}

async function emailStatus(api: ServedRouter, id: string, status: string): Promise<unknown> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const response = await api.request('GET', `/emails/${id}`);
    const body = response.body as { status?: string };
    if (body.status === status || Date.now() > deadline) return response.body;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const errorOf = (body: unknown) =>
  (body as { error: { code: string; errors?: { field: string; message: string }[] } }).error;

describe('sending service over HTTP with a real SMTP relay', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await setup();
  });
  afterAll(async () => {
    await h.stop();
  });

  it('sends inline content through the relay, DKIM-signed, with headers and attachments', async () => {
    const response = await h.api.request('POST', '/v1/send', {
      to: { name: 'Ann', email: 'ann@example.org' },
      from: { name: 'Stamp', email: 'hello@example.test' },
      subject: 'Hello {{ name }}',
      body: '<p>Hi {{ name }}, plan {{ plan }}</p>',
      reply: 'support@example.test',
      headers: { 'X-Campaign': 'spring' },
      data: { plan: { value: 'pro', persistent: false } },
      attachments: [
        {
          filename: 'hello.txt',
          content: Buffer.from('hello').toString('base64'),
          contentType: 'text/plain',
        },
      ],
    });
    expect(response.status).toBe(200);
    const body = response.body as SendResponse;
    expect(body.success).toBe(true);
    const [sent] = body.data.emails;
    expect(sent?.contact).toEqual({ id: 'c1', email: 'ann@example.org' });
    expect(h.contacts.contacts.get('p1:ann@example.org')?.data).toEqual({ name: 'Ann' });

    await h.sink.waitFor(1, 5000);
    const raw = h.sink.messages[0]?.raw ?? Buffer.alloc(0);
    expect(h.sink.messages[0]?.envelope.to).toEqual(['ann@example.org']);
    const mail = await parseMessage(raw);
    expect(mail.subject).toBe('Hello Ann');
    expect(mail.html).toContain('<p>Hi Ann, plan pro</p>');
    expect(mail.headers.get('x-campaign')).toBe('spring');
    expect(mail.headers.get('x-stamp-email-id')).toBe(sent?.email);
    expect(mail.replyTo?.text).toBe('support@example.test');
    expect(mail.attachments.map((a) => [a.filename, a.content.toString()])).toEqual([
      ['hello.txt', 'hello'],
    ]);
    expect(await verifyDkim(raw, dkimTxt)).toEqual([
      { result: 'pass', signingDomain: 'example.test', selector: 'stamp' },
    ]);
    expect(await emailStatus(h.api, sent?.email ?? '', 'SENT')).toMatchObject({
      id: sent?.email,
      status: 'SENT',
      contactId: 'c1',
      subject: 'Hello Ann',
    });
  });

  it('sends a template with variables, ?? fallback and HTML escaping, recipients in order', async () => {
    const created = await h.api.request('POST', '/templates', {
      name: 'Welcome',
      subject: 'Welcome {{ name ?? friend }}',
      body: '<p>Hello {{ name ?? there }}, {{ data.company }}</p>',
      type: 'TRANSACTIONAL',
      from: 'team@example.test',
      fromName: 'Team',
    });
    expect(created.status).toBe(201);
    const template = created.body as { id: string; from: string };
    expect(template.from).toBe('team@example.test');

    const before = h.sink.messages.length;
    const response = await h.api.request('POST', '/v1/send', {
      to: [{ name: '<b>Bob</b>', email: 'bob@example.org' }, 'carl@example.org'],
      template: template.id,
      data: { company: 'A&B' },
    });
    expect(response.status).toBe(200);
    const emails = (response.body as SendResponse).data.emails;
    expect(emails.map((e) => e.contact.email)).toEqual(['bob@example.org', 'carl@example.org']);
    expect(h.contacts.order.slice(-2)).toEqual(['bob@example.org', 'carl@example.org']);

    await h.sink.waitFor(before + 2, 5000);
    const parsed = await Promise.all(
      h.sink.messages.slice(before).map((message) => parseMessage(message.raw)),
    );
    const byTo = new Map(parsed.map((mail) => [mail.headers.get('x-stamp-email-id'), mail]));
    const bob = byTo.get(emails[0]?.email);
    const carl = byTo.get(emails[1]?.email);
    expect(bob?.subject).toBe('Welcome <b>Bob</b>');
    expect(bob?.html).toContain('<p>Hello &lt;b&gt;Bob&lt;/b&gt;, A&amp;B</p>');
    expect(bob?.from?.value[0]).toEqual({ name: 'Team', address: 'team@example.test' });
    expect(carl?.subject).toBe('Welcome friend');
    expect(carl?.html).toContain('<p>Hello there, A&amp;B</p>');
  });

  it('refuses unverified domains, unknown templates and missing content', async () => {
    const unverified = await h.api.request('POST', '/v1/send', {
      to: 'a@example.org',
      from: 'me@unverified.test',
      subject: 'x',
      body: 'y',
    });
    expect([unverified.status, errorOf(unverified.body).code]).toEqual([
      403,
      'DOMAIN_NOT_VERIFIED',
    ]);
    const unknown = await h.api.request('POST', '/v1/send', {
      to: 'a@example.org',
      template: '0193a000-0000-7000-8000-000000000000',
    });
    expect([unknown.status, errorOf(unknown.body).code]).toEqual([404, 'TEMPLATE_NOT_FOUND']);
    const missing = await h.api.request('POST', '/v1/send', { to: 'a@example.org', subject: 'x' });
    expect(missing.status).toBe(422);
    expect(errorOf(missing.body).errors).toEqual([
      expect.objectContaining({
        field: 'template',
        message: 'Either template or both subject and body are required',
      }),
    ]);
    const injected = await h.api.request('POST', '/v1/send', {
      ...{ to: 'a@example.org', from: 'me@example.test', subject: 'x', body: 'y' },
      headers: { 'X-A': 'v\r\nBcc: evil@example.org' },
    });
    expect(injected.status).toBe(422);
    const template = await h.api.request('POST', '/templates', {
      name: 'Bad',
      subject: 's',
      body: 'b',
      from: 'me@unverified.test',
    });
    expect([template.status, errorOf(template.body).code]).toEqual([403, 'DOMAIN_NOT_VERIFIED']);
  });

  it('refuses a MARKETING template to an unsubscribed contact with 400', async () => {
    const created = await h.api.request('POST', '/templates', {
      name: 'News',
      subject: 'News',
      body: '<p>News</p>',
      type: 'MARKETING',
      from: 'news@example.test',
    });
    const id = (created.body as { id: string }).id;
    const refused = await h.api.request('POST', '/v1/send', {
      to: 'dan@example.org',
      template: id,
    });
    expect([refused.status, errorOf(refused.body).code]).toEqual([400, 'BAD_REQUEST']);
    const before = h.sink.messages.length;
    const allowed = await h.api.request('POST', '/v1/send', {
      to: 'dan@example.org',
      template: id,
      subscribed: true,
    });
    expect(allowed.status).toBe(200);
    await h.sink.waitFor(before + 1, 5000);
    const raw = h.sink.messages[before]?.raw.toString('utf8') ?? '';
    expect(raw).toContain('List-Unsubscribe-Post: List-Unsubscribe=One-Click');
    expect(raw).toMatch(
      /List-Unsubscribe:\s+<https:\/\/stamp\.test\/unsubscribe\/[A-Za-z0-9_.-]+>/,
    );
  });

  it('delivers sandbox mail only to the outbox', async () => {
    const before = h.sink.messages.length;
    const response = await h.api.request('POST', '/v1/send', {
      to: 'eve@example.org',
      from: 'test@sandbox.stamp.localhost',
      subject: 'Sandbox',
      body: '<p>Sandboxed</p>',
    });
    expect(response.status).toBe(200);
    const id = (response.body as SendResponse).data.emails[0]?.email ?? '';
    expect(await emailStatus(h.api, id, 'SENT')).toMatchObject({ status: 'SENT', sandbox: true });
    const list = await h.api.request('GET', '/outbox?limit=10');
    expect(list.body).toMatchObject({
      data: [{ id, to: 'eve@example.org', subject: 'Sandbox' }],
      hasMore: false,
      total: 1,
    });
    expect((list.body as { data: Record<string, unknown>[] }).data[0]).not.toHaveProperty('raw');
    const one = await h.api.request('GET', `/outbox/${id}`);
    expect((one.body as { raw: string }).raw).toContain('Subject: Sandbox');
    expect(h.sink.messages.length).toBe(before);
    const missing = await h.api.request('GET', '/outbox/nope');
    expect([missing.status, errorOf(missing.body).code]).toEqual([404, 'RESOURCE_NOT_FOUND']);
    const unknownEmail = await h.api.request('GET', '/emails/nope');
    expect(unknownEmail.status).toBe(404);
  });

  it('manages templates: list, get, patch, delete, Liquid errors', async () => {
    const invalid = await h.api.request('POST', '/templates', {
      name: 'Broken',
      subject: 'ok',
      body: "{% include 'secret' %}",
    });
    expect(invalid.status).toBe(422);
    expect(errorOf(invalid.body).errors?.map((e) => e.field)).toEqual(['body']);

    const list = await h.api.request('GET', '/templates?type=MARKETING');
    expect(list.body).toMatchObject({ total: 1, page: 1, pageSize: 20, totalPages: 1 });
    const search = await h.api.request('GET', '/templates?search=welc&limit=1');
    expect(search.body).toMatchObject({ total: 1, pageSize: 1 });
    const id = (search.body as { templates: { id: string }[] }).templates[0]?.id ?? '';

    const patched = await h.api.request('PATCH', `/templates/${id}`, {
      subject: 'Changed',
      fromName: null,
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ id, subject: 'Changed', fromName: null, name: 'Welcome' });
    expect((await h.api.request('GET', `/templates/${id}`)).body).toMatchObject({
      subject: 'Changed',
    });

    expect((await h.api.request('DELETE', `/templates/${id}`)).status).toBe(200);
    const gone = await h.api.request('GET', `/templates/${id}`);
    expect([gone.status, errorOf(gone.body).code]).toEqual([404, 'TEMPLATE_NOT_FOUND']);
    expect((await h.api.request('PATCH', `/templates/${id}`, { name: 'x' })).status).toBe(404);
  });
});

describe('delivery retries', () => {
  it('defers a 451 and delivers after the retry timer fires', async () => {
    const h = await setup({ failFirst: 1 });
    try {
      const response = await h.api.request('POST', '/v1/send', {
        to: 'fay@example.org',
        from: 'hello@example.test',
        subject: 'Retry',
        body: '<p>again</p>',
      });
      expect(response.status).toBe(200);
      const id = (response.body as SendResponse).data.emails[0]?.email ?? '';
      await h.sink.waitFor(1, 5000);
      expect(await emailStatus(h.api, id, 'SENT')).toMatchObject({ status: 'SENT', attempts: 1 });
      const types = (await h.platform.store.readStream(`email-${id}`)).map((e) => e.type);
      expect(types).toEqual(['EmailQueued', 'EmailDeferred', 'EmailRetryDue', 'EmailSent']);
      expect(h.sink.messages).toHaveLength(1);
    } finally {
      await h.stop();
    }
  });
});
