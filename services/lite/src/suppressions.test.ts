/**
 * Hard bounces and the suppression list over real sockets (API reference, "Suppressions"): a
 * real SMTP sink refuses one mailbox with 550 at RCPT TO; the email is BOUNCED, the contact
 * unsubscribed (`contact.unsubscribed`) and the address suppressed (HARD_BOUNCE), so the next
 * email to it is not handed to SMTP and is recorded as `email.suppressed`. Manual suppressions
 * are added, listed and removed through the API.
 */
import { startDnsServer, type TestDnsServer } from '@stamp/testkit/dns-server.ts';
import { eventually } from '@stamp/testkit/eventually.ts';
import { type SmtpSink, startSmtpSink } from '@stamp/testkit/smtp-sink.ts';

import type { Stamp } from './app.ts';
import { addVerifiedDomain, call, startTestStamp, TEST_KEYS } from './testing.ts';

const sk = TEST_KEYS.secretKey;
const GONE = 'gone@example.org';

interface Suppression {
  email: string;
  reason: string;
  createdAt: string;
  emailId?: string;
}

let dns: TestDnsServer;
let sink: SmtpSink;
let stamp: Stamp;

const api = (method: string, path: string, body?: unknown) =>
  call(stamp.url, sk, method, path, body);

beforeAll(async () => {
  dns = await startDnsServer({});
  sink = await startSmtpSink({ rejectRecipients: [GONE] });
  stamp = await startTestStamp({ STAMP_SMTP_URL: sink.url, STAMP_DNS_SERVERS: dns.address });
  await addVerifiedDomain(stamp.url, dns, 'bounces.test');
}, 60_000);

afterAll(async () => {
  await stamp.close();
  await sink.close();
  await dns.close();
});

/** Sends one email to `to` and returns its id. */
async function send(to: string, subject: string): Promise<string> {
  const sent = await api('POST', '/v1/send', {
    to,
    from: 'hello@bounces.test',
    subject,
    body: '<p>Hello</p>',
    subscribed: true,
  });
  expect(sent.status).toBe(200);
  return (sent.body as { data: { emails: { email: string }[] } }).data.emails[0]?.email ?? '';
}

const emailOf = (id: string) =>
  eventually(`the outcome of ${id}`, async () => {
    const email = (await api('GET', `/emails/${id}`)).body as { status: string; error: string };
    return email.status === 'QUEUED' ? undefined : email;
  });

describe('hard bounces', () => {
  it('bounce, unsubscribe and suppress the address; the next email is not sent', async () => {
    const first = await send(GONE, 'First');
    expect(await emailOf(first)).toMatchObject({ status: 'BOUNCED' });
    expect((await emailOf(first)).error).toContain('5.1.1');

    const listed = await eventually('the suppression', async () => {
      const page = (await api('GET', '/suppressions')).body as { data: Suppression[] };
      return page.data.length > 0 ? page.data : undefined;
    });
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({ email: GONE, reason: 'HARD_BOUNCE', emailId: first });
    expect(Date.parse(listed[0]?.createdAt ?? '')).toBeGreaterThan(0);
    const contact = await eventually('the unsubscription', async () => {
      const found = (await api('GET', `/contacts?search=gone`)).body as {
        data: { id: string; subscribed: boolean }[];
      };
      return found.data[0]?.subscribed === false ? found.data[0] : undefined;
    });
    const unsubscribed = await eventually('contact.unsubscribed in the feed', async () => {
      const page = (await api('GET', '/activity?type=contact.unsubscribed')).body as {
        data: { contactId?: string; contact?: { id: string } }[];
      };
      return page.data.length > 0 ? page.data : undefined;
    });
    expect(unsubscribed).toHaveLength(1);
    expect(JSON.stringify(unsubscribed)).toContain(contact.id);

    const delivered = sink.messages.length;
    const second = await send(GONE, 'Second');
    expect(await emailOf(second)).toMatchObject({ status: 'FAILED', suppressed: 'HARD_BOUNCE' });
    const suppressed = await eventually('email.suppressed in the feed', async () => {
      const page = (await api('GET', '/activity?type=email.suppressed')).body as {
        data: { emailId?: string; data: { reason?: string } }[];
      };
      return page.data.find((item) => item.emailId === second);
    });
    expect(suppressed.data.reason).toBe('HARD_BOUNCE');
    const bounced = (await api('GET', '/activity?type=email.bounced')).body as {
      data: { emailId?: string; data: { error?: string; responseCode?: number } }[];
    };
    const item = bounced.data.find((entry) => entry.emailId === first);
    expect(item?.data.responseCode).toBe(550);
    // The feed keeps no addresses, not even those quoted in the server's reply.
    expect(item?.data.error).not.toContain(GONE);
    // Another address still goes out; the suppressed one never reached the sink.
    await send('fine@example.org', 'Third');
    await sink.waitFor(delivered + 1, 20_000);
    expect(sink.messages.every((message) => !message.envelope.to.includes(GONE))).toBe(true);
  }, 60_000);
});

describe('the suppression list', () => {
  it('adds, lists and removes addresses by hand, naming bad input', async () => {
    const added = await api('POST', '/suppressions', { email: 'Manual@Example.org' });
    expect(added.status).toBe(201);
    expect(added.body).toMatchObject({ email: 'manual@example.org', reason: 'MANUAL' });
    const again = await api('POST', '/suppressions', { email: 'manual@example.org' });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(added.body);

    const bad = await api('POST', '/suppressions', { email: 'not an address' });
    expect(bad.status).toBe(422);
    expect(bad.body).toMatchObject({ error: { errors: [{ field: 'email' }] } });
    expect((await call(stamp.url, undefined, 'GET', '/suppressions')).status).toBe(401);

    const page = (await api('GET', '/suppressions?limit=1')).body as {
      data: Suppression[];
      cursor: string | null;
    };
    expect(page.data.map((entry) => entry.email)).toEqual(['manual@example.org']);
    const next = (await api('GET', `/suppressions?limit=1&cursor=${page.cursor ?? ''}`)).body as {
      data: Suppression[];
    };
    expect(next.data.map((entry) => entry.email)).toEqual([GONE]);

    expect((await api('DELETE', '/suppressions/MANUAL@example.org')).status).toBe(204);
    expect((await api('DELETE', '/suppressions/manual@example.org')).status).toBe(404);
    expect((await api('DELETE', '/suppressions/nobody')).status).toBe(422);
    const after = (await api('GET', '/suppressions')).body as { data: Suppression[] };
    expect(after.data.map((entry) => entry.email)).toEqual([GONE]);
    // Lifted: the address receives email again.
    const id = await send('manual@example.org', 'Welcome back');
    expect(await emailOf(id)).toMatchObject({ status: 'SENT' });
  }, 60_000);
});
