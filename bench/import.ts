import { openAsBlob, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { fetchJson } from '@stamp/testkit/net.ts';
import autocannon from 'autocannon';

import { sampleContactsCsv } from '../services/contacts/src/jobs/sample-csv.ts';
import { benchDirectory, figure, KEYS, startStamp } from './harness.ts';

/**
 * CSV import of a 5 MB file (about 100,000 rows with quoted fields, UTF-8 names and a few broken
 * rows) into the embedded platform in its own process: POST /contacts/import, then GET
 * /contacts/import/:jobId every 50 ms until the job ends. Meanwhile POST /v1/track runs at a
 * steady 200 requests/s (TRACK_RATE) on 4 connections; the same load on the idle platform just
 * before is the same run's baseline. Prints the time to the 202, the time to COMPLETED (goal: at
 * most 10 s), rows per second, and the track latencies (goal: p99 at most 100 ms during the
 * import). ROWS changes the row count.
 */
interface Job {
  jobId?: string;
  status: string;
  processed: number;
  total: number;
  result: Record<string, number>;
  failedReason: string | null;
}

const sample = sampleContactsCsv({ rows: Number(process.env.ROWS ?? 100_000) });
const path = join(benchDirectory('stamp-import-'), 'contacts.csv');
writeFileSync(path, sample.content);

const stamp = await startStamp();
const trackRate = Number(process.env.TRACK_RATE ?? 200);

/** POST /v1/track at `trackRate` requests/s until `stop` is called (or `seconds` pass). */
function trackLoad(seconds: number): { done: Promise<autocannon.Result>; stop: () => void } {
  let counter = 0;
  let settle: (result: autocannon.Result) => void = () => undefined;
  let fail: (error: unknown) => void = () => undefined;
  const done = new Promise<autocannon.Result>((resolve, reject) => {
    settle = resolve;
    fail = reject;
  });
  const instance = autocannon(
    {
      url: `${stamp.url}/v1/track`,
      connections: 4,
      overallRate: trackRate,
      duration: seconds,
      requests: [
        {
          method: 'POST',
          headers: {
            authorization: `Bearer ${KEYS.publicKey}`,
            'content-type': 'application/json',
          },
          setupRequest: (request) => ({
            ...request,
            body: JSON.stringify({
              event: 'import-bench',
              email: `tracker${counter++ % 500}@example.org`,
            }),
          }),
        },
      ],
    },
    (error: Error | null, result: autocannon.Result) => {
      if (error === null) settle(result);
      else fail(error);
    },
  );
  return {
    done,
    stop: () => {
      instance.stop();
    },
  };
}

const idle = await trackLoad(4).done;
const during = trackLoad(600);
const form = new FormData();
form.append('file', await openAsBlob(path, { type: 'text/csv' }), 'contacts.csv');
const started = performance.now();
const response = await fetch(`${stamp.url}/contacts/import`, {
  method: 'POST',
  headers: { authorization: `Bearer ${KEYS.secretKey}` },
  body: form,
});
const accepted = performance.now();
const queued = (await response.json()) as Job;
if (response.status !== 202 || queued.jobId === undefined) {
  throw new Error(`import refused: ${response.status} ${JSON.stringify(queued)}`);
}
let job = queued;
while (job.status === 'QUEUED' || job.status === 'RUNNING') {
  await new Promise((resolve) => setTimeout(resolve, 50));
  const polled = await fetchJson(`${stamp.url}/contacts/import/${queued.jobId}`, {
    key: KEYS.secretKey,
  });
  job = polled.body as Job;
}
const completed = performance.now();
during.stop();
const busy = await during.done;
await stamp.stop();

if (job.status !== 'COMPLETED') throw new Error(`import ended ${job.status}: ${job.failedReason}`);
for (const [key, count] of Object.entries(sample.expected)) {
  if (job.result[key] !== count) {
    throw new Error(`result.${key} is ${job.result[key]}, expected ${count}`);
  }
}
const seconds = (completed - started) / 1000;
figure('import.file_size', sample.content.length, 'bytes');
figure('import.rows', sample.rows, 'rows');
figure('import.accepted', accepted - started, 'ms');
figure('import.completed', seconds, 's');
figure('import.rows_per_s', sample.rows / seconds, 'rows/s');
figure('import.track_p99_during_import', busy.latency.p99, 'ms');
figure('import.track_p50_during_import', busy.latency.p50, 'ms');
figure('import.track_non2xx_during_import', busy.non2xx, 'responses');
figure('import.track_p99_idle_baseline', idle.latency.p99, 'ms');
