import { request } from 'node:http';

import { fetchJson } from '@stamp/testkit/net.ts';
import { startWebhookReceiver } from '@stamp/testkit/webhook-receiver.ts';
import { Webhook } from 'standardwebhooks';

import { figure, KEYS, startStamp } from './harness.ts';

/**
 * Webhook fan-out: COUNT (default 10,000) tracked events, each posted by the embedded platform
 * to one endpoint on a loopback receiver, signed (Standard Webhooks). Prints events/s from the
 * first track to the last post received, beside the baseline of the same run: the same number of
 * signed posts sent straight from this process to the same receiver, 16 at a time on a new
 * connection each (as the delivery worker sends them). Then the receiver goes down for DOWN_MS
 * (default 60,000) while DOWN_COUNT (default 2,000) more events are tracked; once it is back and
 * traffic resumes (one more event), prints the time until every one of them was delivered and
 * that backlog's rate. The fan-out rate includes the tracking of the events on the same 2 cores;
 * the backlog rate is the delivery worker's alone.
 */
const count = Number(process.env.COUNT ?? 10_000);
const downMs = Number(process.env.DOWN_MS ?? 60_000);
const downCount = Number(process.env.DOWN_COUNT ?? 2_000);
const CONCURRENCY = 32;

const receiver = await startWebhookReceiver();
const stamp = await startStamp({ STAMP_ALLOW_PRIVATE_TARGETS: 'true' });
const created = await fetchJson(`${stamp.url}/webhook-endpoints`, {
  method: 'POST',
  key: KEYS.secretKey,
  body: { url: receiver.url, eventTypes: ['event.tracked'] },
});
if (created.status !== 201) throw new Error(`endpoint: ${created.status}`);
const secret = (created.body as { secret: string }).secret;

/** Distinct deliveries the receiver answered (ids of posts made while it was up). */
const delivered = new Set<string>();
const respond = receiver.respond;
receiver.respond = (posted, previous) => {
  delivered.add(String(posted.headers['webhook-id']));
  return respond(posted, previous);
};

/** Tracks `total` events named `name`, CONCURRENCY at a time. */
async function track(name: string, total: number): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < total) {
        const index = next++;
        const answer = await fetchJson(`${stamp.url}/v1/track`, {
          method: 'POST',
          key: KEYS.publicKey,
          body: { event: name, email: `reader${index % 500}@example.org`, data: { index } },
        });
        if (answer.status !== 200) throw new Error(`track: ${answer.status}`);
      }
    }),
  );
}

async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 10));
}

// Fan-out.
const started = performance.now();
await track('fanout', count);
const trackedMs = performance.now() - started;
await until(() => delivered.size >= count);
const fanoutMs = performance.now() - started;

// Down for a minute, then back with traffic.
receiver.down = true;
const before = delivered.size;
await track('during-outage', downCount);
await new Promise((resolve) => setTimeout(resolve, downMs));
receiver.down = false;
const back = performance.now();
await track('after-outage', 1);
await until(() => delivered.size >= before + downCount + 1);
const drainMs = performance.now() - back;
await stamp.stop();

// Baseline: the same signed posts, straight to the receiver.
const webhook = new Webhook(secret);
const body = JSON.stringify({
  type: 'event.tracked',
  timestamp: new Date().toISOString(),
  data: {},
});
function post(id: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const now = new Date();
    const req = request(receiver.url, {
      method: 'POST',
      agent: false,
      headers: {
        'content-type': 'application/json',
        'webhook-id': id,
        'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
        'webhook-signature': webhook.sign(id, now, body),
      },
    });
    req.on('response', (res) => {
      res.resume();
      res.on('end', resolve);
    });
    req.on('error', reject);
    req.end(body);
  });
}
let sent = 0;
const baselineStarted = performance.now();
await Promise.all(
  Array.from({ length: 16 }, async () => {
    while (sent < count) await post(`baseline-${sent++}`);
  }),
);
const baselineMs = performance.now() - baselineStarted;
await receiver.close();

figure('webhooks.events', count, 'events');
figure('webhooks.tracked_per_s', (count * 1000) / trackedMs, 'events/s');
figure('webhooks.delivered_per_s', (count * 1000) / fanoutMs, 'events/s');
figure('bare_signed_posts.per_s', (count * 1000) / baselineMs, 'posts/s');
figure('webhooks.ratio_to_bare_posts', baselineMs / fanoutMs, 'x');
figure('webhooks.outage', downMs, 'ms');
figure('webhooks.outage_events', downCount, 'events');
figure('webhooks.drain_after_outage', drainMs, 'ms');
figure('webhooks.backlog_drain_per_s', ((downCount + 1) * 1000) / drainMs, 'events/s');
figure(
  'webhooks.backlog_ratio_to_bare_posts',
  ((downCount + 1) * baselineMs) / (count * drainMs),
  'x',
);
