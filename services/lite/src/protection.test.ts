/**
 * Project protection over real sockets (issue "Bounces and complaints"): a project that sends
 * 560 emails through a real SMTP sink, 60 of them to mailboxes the sink refuses (550), passes the
 * 10 % bounce threshold and is suspended: its sends answer 403 PROJECT_DISABLED with the reason,
 * its security report shows the rates and the suspension, and a reinstatement lets it send again.
 */
import { startDnsServer, type TestDnsServer } from '@stamp/testkit/dns-server.ts';
import { eventually } from '@stamp/testkit/eventually.ts';
import { type SmtpSink, startSmtpSink } from '@stamp/testkit/smtp-sink.ts';

import type { Stamp } from './app.ts';
import { addVerifiedDomain, call, startTestStamp, TEST_KEYS } from './testing.ts';

const sk = TEST_KEYS.secretKey;
const bouncing = Array.from({ length: 60 }, (_, index) => `gone${index}@example.org`);
let dns: TestDnsServer;
let sink: SmtpSink;
let stamp: Stamp;

const api = (method: string, path: string, body?: unknown) =>
  call(stamp.url, sk, method, path, body);

beforeAll(async () => {
  dns = await startDnsServer({});
  sink = await startSmtpSink({ rejectRecipients: bouncing });
  stamp = await startTestStamp({ STAMP_SMTP_URL: sink.url, STAMP_DNS_SERVERS: dns.address });
  await addVerifiedDomain(stamp.url, dns, 'protected.test');
}, 60_000);

afterAll(async () => {
  await stamp.close();
  await sink.close();
  await dns.close();
});

const sendTo = (to: string[]) =>
  api('POST', '/v1/send', {
    to,
    from: 'news@protected.test',
    subject: 'News',
    body: '<p>News</p>',
    subscribed: true,
  });

interface Security {
  status: string;
  sends: number;
  bounces: number;
  bounceRate: number;
  suspension: { reason: string } | null;
  thresholds: { minimumSends: number; bounceRate: number; complaintRate: number };
  recentSuspensions: unknown[];
}

describe('project protection', () => {
  it('suspends a project past 10 % bounces, refuses its sends, and reinstates it', async () => {
    const projectId = stamp.bootstrap.projectId;
    const good = Array.from({ length: 500 }, (_, index) => `reader${index}@example.org`);
    const everyone = [...good, ...bouncing];
    for (let first = 0; first < everyone.length; first += 50) {
      expect((await sendTo(everyone.slice(first, first + 50))).status).toBe(200);
    }

    // Polled on the report, not by sending: every accepted send would count in the window.
    let last: Security | undefined;
    await eventually(
      'the suspension',
      async () => {
        last = (await api('GET', `/projects/${projectId}/security`)).body as Security;
        return last.status === 'SUSPENDED' ? true : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 200 },
    ).catch((error: unknown) => {
      // What the project's report said last, and what the sink received, explain a timeout.
      throw new Error(
        `${String(error)}; last report ${JSON.stringify(last)}; the sink received ${sink.messages.length} messages`,
      );
    });
    const refused = await sendTo(['late@example.org']);
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({
      success: false,
      error: { code: 'PROJECT_DISABLED', statusCode: 403 },
    });
    expect(JSON.stringify(refused.body)).toContain('bounce rate');

    const security = (await api('GET', `/projects/${projectId}/security`)).body as Security;
    expect(security).toMatchObject({
      status: 'SUSPENDED',
      suspension: { reason: 'BOUNCE_RATE' },
      thresholds: { minimumSends: 500, bounceRate: 0.1, complaintRate: 0.005 },
    });
    expect(security.bounces).toBeGreaterThan(50);
    expect(security.bounceRate).toBeGreaterThan(0.1);
    expect(security.recentSuspensions).toHaveLength(1);
    expect((await api('GET', `/users/@me/projects/${projectId}/security`)).body).toMatchObject({
      status: 'SUSPENDED',
    });
    const publicKey = await call(
      stamp.url,
      TEST_KEYS.publicKey,
      'GET',
      `/projects/${projectId}/security`,
    );
    expect(publicKey.status).toBe(401);
    const other = await api('GET', '/projects/00000000-0000-7000-8000-000000000000/security');
    expect(other.status).toBe(403);

    const reinstated = await api('POST', `/projects/${projectId}/security/reinstate`);
    expect(reinstated.status).toBe(200);
    // The window starts afresh (emails still in flight may land in it).
    const after = reinstated.body as Security & { window: { since: string } };
    expect(after).toMatchObject({ status: 'ACTIVE', suspension: null });
    expect(after.sends).toBeLessThan(security.sends);
    expect(Date.parse(after.window.since)).toBeGreaterThan(Date.now() - 60_000);
    expect((await sendTo(['welcome-back@example.org'])).status).toBe(200);
  }, 120_000);
});
