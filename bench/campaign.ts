import { spawn } from 'node:child_process';

import { startDnsServer } from '@stamp/testkit/dns-server.ts';
import { startSmtpSink } from '@stamp/testkit/smtp-sink.ts';

import { COMPILE_CACHE, figure, KEYS, startStamp, verifyBenchDomain } from './harness.ts';

/**
 * A campaign to RECIPIENTS (default 100,000) subscribed contacts, DKIM on, relayed to an SMTP
 * sink on loopback by the embedded platform (SMTP pool of 5, as configured by default), with the
 * throttle raised out of the way (`STAMP_CAMPAIGN_RATE_PER_SECOND=100000`). Prints emails/s end
 * to end (from POST /campaigns/:id/send to the last message at the sink), the resident memory
 * during the campaign, and the delivery time of the transactional /v1/send calls made every
 * 200 ms meanwhile. The same run's ceiling: a plain nodemailer pool of 5 connections with DKIM,
 * in its own process (`nodemailer-blast.ts`), blasting BASELINE (default 20,000) messages of the
 * same size to the same sink.
 */
const recipients = Number(process.env.RECIPIENTS ?? 100_000);
const baselineCount = Number(process.env.BASELINE ?? 20_000);
const dns = await startDnsServer({});
const sink = await startSmtpSink();

// Ceiling: nodemailer alone in its own process (as Stamp is: the sink keeps this process's
// thread), same pool size, DKIM with a 2048-bit key, same body size.
const ceiling = await new Promise<number>((resolve, reject) => {
  const child = spawn(process.execPath, ['bench/nodemailer-blast.ts'], {
    env: {
      ...process.env,
      SINK_URL: sink.url,
      COUNT: String(baselineCount),
      NODE_COMPILE_CACHE: COMPILE_CACHE,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8');
  });
  child.once('exit', (code) => {
    if (code === 0) resolve(Number(output.trim()));
    else reject(new Error(`nodemailer-blast exited with ${code}`));
  });
});
sink.messages.length = 0;

const stamp = await startStamp({
  STAMP_SMTP_URL: sink.url,
  STAMP_DNS_SERVERS: dns.address,
  STAMP_CAMPAIGN_RATE_PER_SECOND: '100000',
});
const headers = { authorization: `Bearer ${KEYS.secretKey}`, 'content-type': 'application/json' };
const request = async (method: string, path: string, payload?: unknown): Promise<unknown> =>
  await (
    await fetch(stamp.url + path, {
      method,
      headers,
      ...(payload === undefined ? {} : { body: JSON.stringify(payload) }),
    })
  ).json();

await verifyBenchDomain(stamp.url, dns, 'bench.test');

const rows = Array.from({ length: recipients }, (_, index) => `p${index}@example.org,${index}`);
const form = new FormData();
form.append('file', new Blob([`email,number\n${rows.join('\n')}\n`]), 'audience.csv');
const imported = await fetch(`${stamp.url}/contacts/import`, {
  method: 'POST',
  headers: { authorization: headers.authorization },
  body: form,
});
const { jobId } = (await imported.json()) as { jobId: string };
for (;;) {
  const job = (await request('GET', `/contacts/import/${jobId}`)) as { status: string };
  if (job.status === 'COMPLETED') break;
  if (job.status === 'FAILED') throw new Error('import failed');
  await new Promise((resolve) => setTimeout(resolve, 200));
}

const campaign = (await request('POST', '/campaigns', {
  name: 'Bench',
  subject: 'News for {{ number }}',
  body: '<p>Hello person {{ number }}, here is the news.</p>',
  from: 'news@bench.test',
  audienceType: 'ALL',
})) as { data: { id: string } };
const idleRss = stamp.rss();
const started = performance.now();
await request('POST', `/campaigns/${campaign.data.id}/send`);

// Transactional sends during the campaign: time from the request to the sink's receipt.
const sentAt = new Map<string, number>();
const deliveryMs: number[] = [];
let rssPeak = 0;
let scanned = 0;
const scan = (): void => {
  for (; scanned < sink.messages.length; scanned++) {
    const message = sink.messages[scanned]!;
    const raw = message.raw.toString('latin1', 0, 2048);
    const id = /^X-Stamp-Email-ID:\s*(\S+)/im.exec(raw)?.[1];
    const at = id === undefined ? undefined : sentAt.get(id);
    if (at !== undefined && id !== undefined) {
      deliveryMs.push(message.receivedAt - at);
      sentAt.delete(id);
    }
  }
};
const campaignMessages = (): number => sink.messages.length - deliveryMs.length - sentAt.size;
let transactional = 0;
while (campaignMessages() < recipients) {
  const begin = performance.now();
  const sent = (await request('POST', '/v1/send', {
    to: `vip${transactional++}@example.org`,
    from: 'alerts@bench.test',
    subject: 'Your code',
    body: '<p>123456</p>',
  })) as { data: { emails: { email: string }[] } };
  sentAt.set(sent.data.emails[0]!.email, begin);
  rssPeak = Math.max(rssPeak, stamp.rss());
  await new Promise((resolve) => setTimeout(resolve, 200));
  scan();
}
const seconds = (performance.now() - started) / 1000;
const deadline = Date.now() + 30_000;
while (sentAt.size > 0 && Date.now() < deadline) {
  await new Promise((resolve) => setTimeout(resolve, 50));
  scan();
}
await stamp.stop();
await sink.close();
await dns.close();

deliveryMs.sort((a, b) => a - b);
const at = (quantile: number): number =>
  deliveryMs[Math.min(deliveryMs.length - 1, Math.floor(quantile * deliveryMs.length))] ?? 0;
const rate = recipients / seconds;
figure('campaign.recipients', recipients, 'emails');
figure('campaign.emails_per_s_end_to_end', rate, 'emails/s');
figure('nodemailer_pool_dkim.ceiling', ceiling, 'emails/s');
figure('campaign.ratio_to_ceiling', rate / ceiling, 'x');
figure('campaign.rss_before', Math.round(idleRss / 2 ** 20), 'MiB');
figure('campaign.rss_peak', Math.round(rssPeak / 2 ** 20), 'MiB');
figure('campaign.transactional_sends', deliveryMs.length, 'emails');
figure('campaign.transactional_lost', sentAt.size, 'emails');
figure('campaign.transactional_delivery_p50', at(0.5), 'ms');
figure('campaign.transactional_delivery_p99', at(0.99), 'ms');
