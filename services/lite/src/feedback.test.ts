/**
 * Bounce and complaint reports over real sockets (issue "Bounces and complaints"): email from a
 * verified domain leaves with a VERP return path on the domain's return-path host; a real SMTP
 * client (nodemailer) delivers a DSN (RFC 3464) and an ARF report (RFC 5965) to Stamp's inbound
 * listener for those addresses; the emails become BOUNCED and COMPLAINED, the addresses are
 * suppressed and the contacts unsubscribed. Every other recipient is refused, and a soft bounce
 * changes nothing.
 */
import { arfReport, dsnReport } from '@stamp/testkit/reports.ts';
import { startDnsServer, type TestDnsServer } from '@stamp/testkit/dns-server.ts';
import { eventually } from '@stamp/testkit/eventually.ts';
import { freePort } from '@stamp/testkit/net.ts';
import { type SmtpSink, startSmtpSink } from '@stamp/testkit/smtp-sink.ts';
import nodemailer from 'nodemailer';

import type { Stamp } from './app.ts';
import { addVerifiedDomain, call, startTestStamp, TEST_KEYS } from './testing.ts';

const sk = TEST_KEYS.secretKey;
let dns: TestDnsServer;
let sink: SmtpSink;
let stamp: Stamp;
let inboundPort: number;

const api = (method: string, path: string, body?: unknown) =>
  call(stamp.url, sk, method, path, body);

beforeAll(async () => {
  dns = await startDnsServer({});
  sink = await startSmtpSink();
  inboundPort = await freePort();
  stamp = await startTestStamp({
    STAMP_SMTP_URL: sink.url,
    STAMP_DNS_SERVERS: dns.address,
    STAMP_INBOUND_SMTP_PORT: String(inboundPort),
  });
  await addVerifiedDomain(stamp.url, dns, 'feedback.test');
}, 60_000);

afterAll(async () => {
  await stamp.close();
  await sink.close();
  await dns.close();
});

/** Sends one email to `to`; resolves with its id and the envelope sender it left with. */
async function sendTo(to: string): Promise<{ id: string; returnPath: string }> {
  const sent = await api('POST', '/v1/send', {
    to,
    from: 'news@feedback.test',
    subject: `For ${to}`,
    body: '<p>Hello</p>',
    subscribed: true,
  });
  expect(sent.status).toBe(200);
  const id = (sent.body as { data: { emails: { email: string }[] } }).data.emails[0]?.email ?? '';
  const message = await eventually(`the message to ${to}`, () =>
    Promise.resolve(sink.messages.find((found) => found.envelope.to.includes(to))),
  );
  return { id, returnPath: message.envelope.from };
}

/** Delivers `raw` to the inbound listener for `recipient`, as a mailbox provider's MTA would. */
async function deliverReport(recipient: string, raw: string): Promise<void> {
  const transport = nodemailer.createTransport({
    host: '127.0.0.1',
    port: inboundPort,
    secure: false,
    ignoreTLS: true,
  });
  try {
    await transport.sendMail({
      envelope: { from: 'mailer-daemon@mx.example.org', to: recipient },
      raw,
    });
  } finally {
    transport.close();
  }
}

const statusOf = async (id: string): Promise<string> =>
  ((await api('GET', `/emails/${id}`)).body as { status: string }).status;

const subscribedOf = async (email: string): Promise<boolean | undefined> => {
  const found = (await api('GET', `/contacts?search=${encodeURIComponent(email)}`)).body as {
    data: { email: string; subscribed: boolean }[];
  };
  return found.data.find((contact) => contact.email === email)?.subscribed;
};

describe('the inbound listener', () => {
  it('takes a DSN as a hard bounce: BOUNCED, suppressed, unsubscribed; a soft one changes nothing', async () => {
    const { id, returnPath } = await sendTo('moved@example.org');
    expect(returnPath).toMatch(/^b-[0-9a-f]{32}-[0-9a-f]{20}@bounce\.feedback\.test$/);
    await eventually('the delivery', async () =>
      (await statusOf(id)) === 'SENT' ? true : undefined,
    );

    await deliverReport(returnPath, dsnReport(returnPath, 'moved@example.org', '4.2.2'));
    await deliverReport(returnPath, dsnReport(returnPath, 'moved@example.org', '5.1.1'));
    await eventually('the bounce', async () =>
      (await statusOf(id)) === 'BOUNCED' ? true : undefined,
    );
    const suppressions = await eventually('the suppression', async () => {
      const page = (await api('GET', '/suppressions')).body as {
        data: { email: string; reason: string; emailId?: string }[];
      };
      return page.data.find((entry) => entry.email === 'moved@example.org');
    });
    expect(suppressions).toMatchObject({ reason: 'HARD_BOUNCE', emailId: id });
    await eventually('the unsubscription', async () =>
      (await subscribedOf('moved@example.org')) === false ? true : undefined,
    );
    const bounced = (await api('GET', '/activity?type=email.bounced')).body as {
      data: { emailId?: string; data: { error?: string } }[];
    };
    // One bounce, though two reports came: the soft one (first) recorded nothing.
    const items = bounced.data.filter((item) => item.emailId === id);
    expect(items).toHaveLength(1);
    expect(items[0]?.data.error).toContain('5.1.1');
    expect(items[0]?.data.error).not.toContain('moved@example.org');
  }, 60_000);

  it('takes an ARF report as a complaint: COMPLAINED, suppressed, unsubscribed', async () => {
    const { id, returnPath } = await sendTo('annoyed@example.org');
    await eventually('the delivery', async () =>
      (await statusOf(id)) === 'SENT' ? true : undefined,
    );
    await deliverReport(returnPath, arfReport(returnPath, 'annoyed@example.org'));
    await eventually('the complaint', async () =>
      (await statusOf(id)) === 'COMPLAINED' ? true : undefined,
    );
    await eventually('the complaint suppression', async () => {
      const page = (await api('GET', '/suppressions')).body as {
        data: { email: string; reason: string }[];
      };
      return page.data.find(
        (entry) => entry.email === 'annoyed@example.org' && entry.reason === 'COMPLAINT',
      );
    });
    await eventually('the unsubscription', async () =>
      (await subscribedOf('annoyed@example.org')) === false ? true : undefined,
    );
    const feed = await eventually('email.complained in the feed', async () => {
      const page = (await api('GET', '/activity?type=email.complained')).body as {
        data: { emailId?: string; data: { feedbackType?: string } }[];
      };
      return page.data.find((item) => item.emailId === id);
    });
    expect(feed.data.feedbackType).toBe('abuse');
  }, 60_000);

  it('records mail to a verified domain on its sender, with the message, until the contact goes', async () => {
    const raw = [
      'From: Customer <customer@example.org>',
      'To: support@feedback.test',
      'Subject: Where is my order?',
      'Message-ID: <q1@example.org>',
      'Date: Tue, 24 Nov 2026 10:00:00 +0000',
      '',
      'Hello, my order has not arrived.',
      '',
    ].join('\r\n');
    await deliverReport('support@feedback.test', raw);
    const listed = await eventually('the received email', async () => {
      const page = (await api('GET', '/inbound')).body as {
        data: { id: string; contactId: string; subject: string; from: { email: string } }[];
      };
      return page.data[0];
    });
    expect(listed).toMatchObject({
      subject: 'Where is my order?',
      from: { email: 'customer@example.org' },
    });
    const full = (await api('GET', `/inbound/${listed.id}`)).body as { raw: string; to: string[] };
    expect(full.to).toEqual(['support@feedback.test']);
    expect(full.raw).toContain('my order has not arrived');
    const feed = await eventually('email.received in the feed', async () => {
      const page = (await api('GET', '/activity?type=email.received')).body as {
        data: { contactId?: string; contact?: { id?: string }; data: { subject?: string } }[];
      };
      return page.data[0];
    });
    expect(feed.data.subject).toBe('Where is my order?');
    // The sender became a contact, unsubscribed as senders of /v1/send are.
    expect(await subscribedOf('customer@example.org')).toBe(false);

    expect((await api('DELETE', `/contacts/${listed.contactId}`)).status).toBe(204);
    await eventually('the received email gone with its contact', async () => {
      const page = (await api('GET', '/inbound')).body as { data: unknown[] };
      return page.data.length === 0 ? true : undefined;
    });
    expect((await api('GET', `/inbound/${listed.id}`)).status).toBe(404);
  }, 60_000);

  it('refuses every recipient but a genuine VERP address or a verified domain', async () => {
    const { returnPath } = await sendTo('kept@example.org');
    const [local, host] = returnPath.split('@') as [string, string];
    const forged = `${local.slice(0, -1)}${local.endsWith('0') ? '1' : '0'}@${host}`;
    for (const recipient of [
      forged,
      'postmaster@bounce.feedback.test',
      'someone@example.org',
      'support@unverified.test',
    ]) {
      await expect(
        deliverReport(recipient, arfReport(recipient, 'kept@example.org')),
      ).rejects.toThrow(/550/);
    }
    expect(await subscribedOf('kept@example.org')).toBe(true);
  }, 60_000);
});
