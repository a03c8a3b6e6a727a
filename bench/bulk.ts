import { fetchJson } from '@stamp/testkit/net.ts';

import { figure, KEYS, startStamp } from './harness.ts';

/**
 * Bulk jobs of 1,000 contact ids against the embedded platform in its own process: 1,000 contacts
 * are created (POST /contacts), then POST /contacts/bulk-unsubscribe (goal: at most 2 s to
 * COMPLETED), /contacts/bulk-subscribe and /contacts/bulk-delete with all their ids, each polled
 * with GET /contacts/bulk/:jobId every 10 ms until it ends. Prints the time of each.
 */
interface Job {
  id: string;
  status: string;
  result: Record<string, number>;
  failedReason: string | null;
}

const COUNT = 1000;
const stamp = await startStamp();
const call = (method: string, path: string, body?: unknown) =>
  fetchJson(stamp.url + path, { method, key: KEYS.secretKey, body });

const ids: string[] = [];
for (let start = 0; start < COUNT; start += 50) {
  const created = await Promise.all(
    Array.from({ length: Math.min(50, COUNT - start) }, (_, index) =>
      call('POST', '/contacts', { email: `bulk${start + index}@example.io`, data: { n: index } }),
    ),
  );
  ids.push(...created.map((response) => (response.body as { id: string }).id));
}

/** Runs one bulk job to its end; returns the seconds from the POST to COMPLETED. */
async function timed(kind: string, expected: Record<string, number>): Promise<number> {
  const started = performance.now();
  const queued = await call('POST', `/contacts/${kind}`, { contactIds: ids });
  if (queued.status !== 202) throw new Error(`${kind}: ${JSON.stringify(queued.body)}`);
  let job = queued.body as Job;
  while (job.status === 'QUEUED' || job.status === 'RUNNING') {
    await new Promise((resolve) => setTimeout(resolve, 10));
    job = (await call('GET', `/contacts/bulk/${job.id}`)).body as Job;
  }
  const seconds = (performance.now() - started) / 1000;
  if (job.status !== 'COMPLETED') throw new Error(`${kind} ended ${job.status}`);
  for (const [key, count] of Object.entries(expected)) {
    if (job.result[key] !== count) throw new Error(`${kind}: result.${key} is ${job.result[key]}`);
  }
  return seconds;
}

const unsubscribe = await timed('bulk-unsubscribe', { unsubscribed: COUNT });
const subscribe = await timed('bulk-subscribe', { subscribed: COUNT });
const remove = await timed('bulk-delete', { deleted: COUNT });
await stamp.stop();

figure('bulk_unsubscribe_1000.completed', unsubscribe, 's');
figure('bulk_subscribe_1000.completed', subscribe, 's');
figure('bulk_delete_1000.completed', remove, 's');
