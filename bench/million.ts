import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

import { benchDirectory, caughtUp, figure, KEYS, startProcess, startStamp } from './harness.ts';
import { rebuildViews, seedContacts } from './seed.ts';

/**
 * One million contacts in embedded mode. The contacts are written through the contacts
 * service's command API (two events each: the contact and its email claim) into a fresh data
 * folder without projections; `stamp views:rebuild` then builds every view from that log (timed);
 * Stamp is started on it as `./pnpmw start` would; its reactors (delivery, segments, workflows,
 * webhooks, ...) first read the two million events the seeding wrote while no platform ran (a
 * running platform handles them as they come): the time until every consumer group has reached
 * the head of the log is printed, and the reads are measured after it: time to ready, `GET
 * /contacts?search=` (p50/p95 over varied terms), the first page of `GET /contacts`,
 * `GET /contacts/:id`, `GET /contacts/fields`, the resident memory of the Stamp process and the
 * size of the data folder; then a bare Express route answering a page of the same size, as the
 * same run's baseline.
 */
const count = Number(process.env.CONTACTS ?? 1_000_000);
const samples = Number(process.env.SAMPLES ?? 40);
/**
 * A data folder named by `STAMP_DATA_DIR` is kept after the run: seeded when it holds no event
 * store yet, reused as it is otherwise (skipping the seeding).
 */
const kept = process.env.STAMP_DATA_DIR;
const dataDir = kept ?? benchDirectory('stamp-million-');

const seeded = performance.now();
if (!existsSync(join(dataDir, 'stamp.db'))) {
  await seedContacts(dataDir, count);
  figure('million.seed_time', (performance.now() - seeded) / 1000, 's');
}

figure('million.view_rebuild_time', rebuildViews(dataDir), 's');

const stamp = await startStamp({ STAMP_DATA_DIR: dataDir });
figure('million.time_to_ready', stamp.startMs, 'ms');
figure('million.rss_ready', Math.round(stamp.rss() / 2 ** 20), 'MiB');
figure('million.reactors_catch_up_time', (await caughtUp(dataDir)) / 1000, 's');
const headers = { authorization: `Bearer ${KEYS.secretKey}` };

async function timed(base: string, path: string): Promise<{ ms: number; body: unknown }> {
  const started = performance.now();
  const response = await fetch(base + path, { headers });
  const body = await response.json();
  if (response.status !== 200)
    throw new Error(`${path}: ${response.status} ${JSON.stringify(body)}`);
  return { ms: performance.now() - started, body };
}

const quantile = (values: number[], q: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
};

async function sample(base: string, path: (index: number) => string): Promise<number[]> {
  const times: number[] = [];
  for (let index = 0; index < samples; index += 1) times.push((await timed(base, path(index))).ms);
  return times;
}

const first = await timed(stamp.url, '/contacts?limit=20');
const page = first.body as { total: number; data: { id: string }[] };
figure('million.contacts_total', page.total, 'contacts');

const terms = ['user12345.', 'example42', 'zzz-no-match', '99.', '@example7.org', 'USER777'];
const search = await sample(
  stamp.url,
  (index) => `/contacts?search=${encodeURIComponent(terms[index % terms.length] ?? '')}&limit=20`,
);
figure('million.search_p50', quantile(search, 0.5), 'ms');
figure('million.search_p95', quantile(search, 0.95), 'ms');

const pages = await sample(stamp.url, () => '/contacts?limit=20');
figure('million.list_first_page_p95', quantile(pages, 0.95), 'ms');

const ids = page.data.map((contact) => contact.id);
const byId = await sample(stamp.url, (index) => `/contacts/${ids[index % ids.length] ?? ''}`);
figure('million.get_contact_p95', quantile(byId, 0.95), 'ms');

const fields = await sample(stamp.url, () => '/contacts/fields');
figure('million.fields_p50', quantile(fields, 0.5), 'ms');
figure('million.fields_p95', quantile(fields, 0.95), 'ms');

figure('million.rss', Math.round(stamp.rss() / 2 ** 20), 'MiB');
await stamp.stop();
figure('million.data_folder', Math.round(folderBytes(dataDir) / 2 ** 20), 'MiB');

// Baseline, same run: a bare Express route answering a page of the same size.
const bare = await startProcess('bench/bare-server.ts', {});
const barePages = await sample(bare.url, () => '/page');
figure('bare_express.page_p95', quantile(barePages, 0.95), 'ms');
figure('bare_express.rss', Math.round(bare.rss() / 2 ** 20), 'MiB');
await bare.stop();
figure(
  'million.first_page_p95_to_bare_express',
  quantile(pages, 0.95) / quantile(barePages, 0.95),
  'x',
);

/** Bytes of the files in `folder` (not recursive: the data folder is flat). */
function folderBytes(folder: string): number {
  let total = 0;
  for (const name of readdirSync(folder)) total += statSync(join(folder, name)).size;
  return total;
}
