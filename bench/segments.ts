import { existsSync } from 'node:fs';
import { join } from 'node:path';

import { newId } from '@stamp/platform';

import { benchDirectory, caughtUp, figure, KEYS, startProcess, startStamp } from './harness.ts';
import { rebuildViews, seedContacts, seededEmail } from './seed.ts';

/**
 * Segments at one million contacts, embedded mode. The seed (as `bench million`, plus a tracked
 * `visited` event for every tenth contact) is built into views by `stamp views:rebuild`; Stamp is
 * started on it, its reactors read the seeded log, and it is measured on a dynamic segment of three filters, `data.plan` equals `pro`,
 * `event.visited` triggeredWithin 30 days and `email.open` notTriggered (no contact has an open:
 * opens are not recorded yet, so the filter passes every contact, read from the same email
 * summary an open would be):
 * - the creation with its count, and `refresh` (a count);
 * - the first full pass when tracking is turned on (every member enters: one event each), timed
 *   until the last entry is in GET /events;
 * - `compute`, a full pass that finds nothing to change (the goal: ≤ 5 s), beside `refresh` (one
 *   count over the same contacts) of the same run;
 * - the time from `POST /v1/track` of a `visited` event by a `pro` contact outside the segment to
 *   its `segment.<slug>.entry` in `GET /events/contact/:id` (p50, p99; the goal: p99 ≤ 100 ms);
 * - the resident memory of Stamp; and, as the same run's baseline, a bare Express route.
 * `CONTACTS` (default 1,000,000) and `SAMPLES` (default 100) change the sizes; a `STAMP_DATA_DIR`
 * is kept and reused as `bench million` does.
 */
/** Whether seeded contact `index` has a `visited` event: every tenth (half of them `pro`). */
const visited = (index: number): boolean => index % 10 === 3;
const count = Number(process.env.CONTACTS ?? 1_000_000);
const samples = Number(process.env.SAMPLES ?? 100);
const kept = process.env.STAMP_DATA_DIR;
const dataDir = kept ?? benchDirectory('stamp-segments-');

if (!existsSync(join(dataDir, 'stamp.db'))) {
  const seeded = performance.now();
  await seedContacts(dataDir, count, async (store, projectId, batch) => {
    const visitors = batch.filter(({ index }) => visited(index));
    if (visitors.length === 0) return;
    await store.append(
      visitors.map(({ index, id }) => ({
        streamId: `trackedEvent-${newId()}`,
        expectedRevision: 'no_stream' as const,
        events: [
          {
            type: 'EventTracked',
            data: { name: 'visited', contactId: id, email: seededEmail(index), data: {} },
            metadata: { projectId, subjectId: id },
          },
        ],
      })),
    );
  });
  figure('segments.seed_time', (performance.now() - seeded) / 1000, 's');
  figure('segments.view_rebuild_time', rebuildViews(dataDir), 's');
}

const stamp = await startStamp({ STAMP_DATA_DIR: dataDir });
// The reactors first read the seeded log (see `caughtUp`); the measurements start after.
figure('segments.reactors_catch_up_time', (await caughtUp(dataDir)) / 1000, 's');
const headers = { authorization: `Bearer ${KEYS.secretKey}`, 'content-type': 'application/json' };

async function call(
  base: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ ms: number; body: unknown }> {
  const started = performance.now();
  const response = await fetch(base + path, {
    method,
    headers,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const parsed: unknown = await response.json();
  if (response.status >= 300) {
    throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(parsed)}`);
  }
  return { ms: performance.now() - started, body: parsed };
}

const quantile = (values: number[], q: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
};

const filter = (field: string, operator: string, value?: unknown, unit?: string) => ({
  field,
  operator,
  ...(value === undefined ? {} : { value }),
  ...(unit === undefined ? {} : { unit }),
});
const condition = {
  logic: 'AND',
  groups: [
    {
      filters: [
        filter('data.plan', 'equals', 'pro'),
        filter('event.visited', 'triggeredWithin', 30, 'days'),
        filter('email.open', 'notTriggered'),
      ],
    },
  ],
};

// A name of its own in each run, for the runs on a kept data folder.
const name = `Bench visitors ${Date.now().toString(36)}`;
const created = await call(stamp.url, 'POST', '/segments', { name, condition });
const segment = created.body as { id: string; memberCount: number };
figure('segments.members', segment.memberCount, 'contacts');
figure('segments.create_with_count', created.ms, 'ms');
const refreshed = await call(stamp.url, 'POST', `/segments/${segment.id}/refresh`);
figure('segments.refresh', refreshed.ms, 'ms');

// Tracking on: the first pass enters every member, each with its event.
const entryName = `segment.${name.toLowerCase().replaceAll(' ', '-')}.entry`;
const firstPass = performance.now();
await call(stamp.url, 'PATCH', `/segments/${segment.id}`, { trackMembership: true });
for (;;) {
  const page = await call(stamp.url, 'GET', `/events?name=${entryName}&limit=1`);
  if ((page.body as { total: number }).total >= segment.memberCount) break;
  if (performance.now() - firstPass > 1_800_000) throw new Error('the first pass did not end');
  await new Promise((resolve) => setTimeout(resolve, 200));
}
figure('segments.first_pass_with_entries', (performance.now() - firstPass) / 1000, 's');

const computed = await call(stamp.url, 'POST', `/segments/${segment.id}/compute`);
const result = computed.body as { entered: number; exited: number; memberCount: number };
figure('segments.compute', computed.ms, 'ms');
figure('segments.compute_changes', result.entered + result.exited, 'events');
// The same run's reference for a pass over every contact: one count of the segment's members.
figure('segments.compute_to_refresh', computed.ms / refreshed.ms, 'x');

// Track → entry: pro contacts (index 4j + 1) without a visit yet.
const latencies: number[] = [];
for (let sample = 0; sample < samples; sample += 1) {
  let index = 4 * (1000 + sample * 37) + 1;
  if (visited(index)) index += 4;
  const started = performance.now();
  const tracked = await call(stamp.url, 'POST', '/v1/track', {
    event: 'visited',
    email: seededEmail(index),
  });
  const contactId = (tracked.body as { data: { contact: string } }).data.contact;
  for (;;) {
    const events = await call(stamp.url, 'GET', `/events/contact/${contactId}?limit=5`);
    const names = (events.body as { data: { name: string }[] }).data.map((event) => event.name);
    if (names.includes(entryName)) break;
    if (performance.now() - started > 30_000) throw new Error(`no entry for contact ${index}`);
  }
  latencies.push(performance.now() - started);
}
figure('segments.track_to_entry_p50', quantile(latencies, 0.5), 'ms');
figure('segments.track_to_entry_p99', quantile(latencies, 0.99), 'ms');
figure('segments.rss', Math.round(stamp.rss() / 2 ** 20), 'MiB');
await stamp.stop();

// Baseline, same run: a bare Express route.
const bare = await startProcess('bench/bare-server.ts', {});
const bareTimes: number[] = [];
for (let sample = 0; sample < samples; sample += 1) {
  bareTimes.push((await call(bare.url, 'GET', '/page')).ms);
}
await bare.stop();
figure('bare_express.page_p99', quantile(bareTimes, 0.99), 'ms');
figure(
  'segments.track_to_entry_p99_to_bare_express',
  quantile(latencies, 0.99) / quantile(bareTimes, 0.99),
  'x',
);
