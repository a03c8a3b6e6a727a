import { mkdtempSync, openAsBlob, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { fetchJson } from '@stamp/testkit/net.ts';

import { sampleContactsCsv } from '../services/contacts/src/jobs/sample-csv.ts';
import { figure, KEYS, startStamp } from './harness.ts';

/**
 * CSV import of a 5 MB file (about 100,000 rows with quoted fields, UTF-8 names and a few broken
 * rows) into the embedded platform in its own process: POST /contacts/import, then GET
 * /contacts/import/:jobId every 50 ms until the job ends. Prints the time to the 202, the time
 * to COMPLETED (goal: at most 10 s) and rows per second. ROWS changes the row count.
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
const path = join(mkdtempSync(join(tmpdir(), 'stamp-import-')), 'contacts.csv');
writeFileSync(path, sample.content);

const stamp = await startStamp();
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
