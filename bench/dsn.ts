import { startDnsServer } from '@stamp/testkit/dns-server.ts';
import { dsnReport } from '@stamp/testkit/reports.ts';
import { startSmtpSink } from '@stamp/testkit/smtp-sink.ts';
import { freePort } from '@stamp/testkit/net.ts';
import nodemailer from 'nodemailer';

import { figure, KEYS, noDelaySocket, startStamp, verifyBenchDomain } from './harness.ts';

/**
 * Bounce reports processed per second: COUNT (default 2,000) emails from a verified domain,
 * relayed by the embedded platform to an SMTP sink on loopback; then one DSN (status 5.1.1) per
 * email, delivered to its VERP return path at Stamp's inbound listener through a nodemailer pool
 * of 5 connections. Prints DSNs/s (from the first DSN to the last `250`, each answered once the
 * bounce is recorded), the time until every address is on the suppression list, and the same
 * run's baseline: the same DSNs through the same pool to a bare SMTP sink.
 */
const count = Number(process.env.COUNT ?? 2_000);
const dns = await startDnsServer({});
const sink = await startSmtpSink();
const inboundPort = await freePort();
const stamp = await startStamp({
  STAMP_SMTP_URL: sink.url,
  STAMP_DNS_SERVERS: dns.address,
  STAMP_INBOUND_SMTP_PORT: String(inboundPort),
});
const request = async (method: string, path: string, payload?: unknown): Promise<unknown> =>
  await (
    await fetch(stamp.url + path, {
      method,
      headers: { authorization: `Bearer ${KEYS.secretKey}`, 'content-type': 'application/json' },
      ...(payload === undefined ? {} : { body: JSON.stringify(payload) }),
    })
  ).json();

await verifyBenchDomain(stamp.url, dns, 'bench.test');
for (let first = 0; first < count; first += 50) {
  const to = Array.from(
    { length: Math.min(50, count - first) },
    (_, index) => `r${first + index}@example.org`,
  );
  await request('POST', '/v1/send', {
    to,
    from: 'news@bench.test',
    subject: 'Hello',
    body: '<p>Hello</p>',
    subscribed: true,
  });
}
await sink.waitFor(count, 600_000);
const reports = sink.messages.map((message) => {
  const recipient = message.envelope.to[0] ?? '';
  return { to: message.envelope.from, raw: dsnReport(message.envelope.from, recipient, '5.1.1') };
});

/**
 * Delivers every report through a pool of 5 whose sockets disable Nagle's algorithm (as real
 * MTAs' do; with it each message waits for delayed ACKs); resolves with the elapsed ms.
 */
async function blast(port: number): Promise<number> {
  const transport = nodemailer.createTransport({
    getSocket: noDelaySocket('127.0.0.1', port),
    pool: true,
    maxConnections: 5,
    maxMessages: Infinity,
    host: '127.0.0.1',
    port,
    secure: false,
    ignoreTLS: true,
  });
  const started = performance.now();
  await Promise.all(
    reports.map((report) =>
      transport.sendMail({
        envelope: { from: 'mailer-daemon@mx.example.org', to: report.to },
        raw: report.raw,
      }),
    ),
  );
  const elapsed = performance.now() - started;
  transport.close();
  return elapsed;
}

const started = performance.now();
const elapsed = await blast(inboundPort);
for (;;) {
  const page = (await request('GET', '/suppressions?limit=1')) as { total: number };
  if (page.total >= count) break;
  await new Promise((resolve) => setTimeout(resolve, 50));
}
const suppressedMs = performance.now() - started;
await stamp.stop();

const bare = await startSmtpSink();
const baselineMs = await blast(bare.port);
await bare.close();
await sink.close();
await dns.close();

figure('dsn.reports', count, 'reports');
figure('dsn.per_s', (count * 1000) / elapsed, 'reports/s');
figure('dsn.all_suppressed_after', suppressedMs, 'ms');
figure('bare_smtp_sink.per_s', (count * 1000) / baselineMs, 'reports/s');
figure('dsn.ratio_to_bare_sink', baselineMs / elapsed, 'x');
