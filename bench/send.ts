import autocannon from 'autocannon';
import { startDnsServer } from '@stamp/testkit/dns-server.ts';
import { startSmtpSink } from '@stamp/testkit/smtp-sink.ts';

import { figure, KEYS, startStamp } from './harness.ts';

/**
 * POST /v1/send, one recipient, a template with 10 variables, DKIM on, relayed to an SMTP sink on
 * loopback. A steady offered load (`SEND_RATE` requests/s, default 400, over 20 connections for
 * 15 s): API latency, and emails/s delivered end to end (accepted emails divided by the time from
 * the first request to the last message received by the sink).
 */
const rate = Number(process.env.SEND_RATE ?? 400);
const dns = await startDnsServer({});
const sink = await startSmtpSink();
const stamp = await startStamp({ STAMP_SMTP_URL: sink.url, STAMP_DNS_SERVERS: dns.address });
const headers = { authorization: `Bearer ${KEYS.secretKey}`, 'content-type': 'application/json' };
const post = async (path: string, body: unknown): Promise<Record<string, unknown>> =>
  (await (
    await fetch(stamp.url + path, { method: 'POST', headers, body: JSON.stringify(body) })
  ).json()) as Record<string, unknown>;

const domain = (await post('/domains', { domain: 'bench.test' })) as {
  id: string;
  records: { purpose: string; name: string; value: string }[];
};
const dkim = domain.records.find((record) => record.purpose === 'DKIM');
if (dkim === undefined) throw new Error('no DKIM record');
dns.set(dkim.name, { TXT: [dkim.value] });
await fetch(`${stamp.url}/domains/${domain.id}/verify`, { headers });
const variables = Array.from({ length: 10 }, (_, index) => `v${index}`);
const template = (await post('/templates', {
  name: 'bench',
  type: 'TRANSACTIONAL',
  from: 'bench@bench.test',
  subject: 'Hello {{ v0 }}',
  body: variables.map((name) => `<p>${name}: {{ ${name} }}</p>`).join(''),
})) as { id: string };

let counter = 0;
const started = performance.now();
const result = await autocannon({
  url: `${stamp.url}/v1/send`,
  connections: 20,
  duration: 15,
  overallRate: rate,
  requests: [
    {
      method: 'POST',
      headers,
      setupRequest: (request) => ({
        ...request,
        body: JSON.stringify({
          to: `user${counter++ % 5000}@example.org`,
          template: template.id,
          data: Object.fromEntries(variables.map((name) => [name, `${name}-${counter}`])),
        }),
      }),
    },
  ],
});
const accepted = result['2xx'];
const loadEnded = performance.now();
const deliveredDuringLoad = sink.messages.length;
await sink.waitFor(accepted, 300_000);
const finished = performance.now();
const seconds = (finished - started) / 1000;
const drainPerSecond = (accepted - deliveredDuringLoad) / ((finished - loadEnded) / 1000);
await stamp.stop();
await sink.close();
await dns.close();

figure('send.offered_rate', rate, 'req/s');
figure('send.api_requests_per_s', result.requests.average, 'req/s');
figure('send.api_latency_p50', result.latency.p50, 'ms');
figure('send.api_latency_p99', result.latency.p99, 'ms');
figure('send.accepted', accepted, 'emails');
figure('send.delivered_per_s_end_to_end', accepted / seconds, 'emails/s');
figure(
  'send.delivered_per_s_during_load',
  deliveredDuringLoad / ((loadEnded - started) / 1000),
  'emails/s',
);
figure('send.delivered_per_s_backlog_drain', drainPerSecond, 'emails/s');
