import { randomBytes } from 'node:crypto';

import { createContactsService } from '@stamp/contacts';
import { createLogger, DnsResolver, newId, openEmbeddedPlatform, Secrets } from '@stamp/platform';

import { benchDirectory, figure, startStamp } from './harness.ts';

/**
 * Restart time after 1,000,000 events: 100,000 contacts (created through the contacts service,
 * two events each) and 800,000 tracked events are written to a fresh data folder with the
 * projections kept current; then the platform is started as `./pnpmw start` would and timed
 * until /readyz answers.
 */
const contacts = Number(process.env.CONTACTS ?? 100_000);
const tracked = Number(process.env.TRACKED ?? 800_000);
const dataDir = benchDirectory('stamp-restart-');
const logger = createLogger({ level: 'warn' });
const projectId = 'bench-project';

const generated = performance.now();
{
  const platform = openEmbeddedPlatform({ dataDir, logger });
  const service = createContactsService({
    store: platform.store,
    bus: platform.bus,
    views: platform.views,
    logger,
    awaitViews: async () => undefined,
    resolver: new DnsResolver(),
    secrets: new Secrets(randomBytes(32)),
  });
  await service.start();
  const ids: string[] = [];
  for (let start = 0; start < contacts; start += 500) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(500, contacts - start) }, (_, index) =>
        service.api.upsertRecipient({
          projectId,
          email: `person${start + index}@example.org`,
          data: { plan: index % 2 === 0 ? 'pro' : 'free' },
          defaultSubscribed: true,
          correlationId: 'bench',
        }),
      ),
    );
    ids.push(...batch.map((contact) => contact.contactId));
  }
  for (let start = 0; start < tracked; start += 1000) {
    await Promise.all(
      Array.from({ length: Math.min(1000, tracked - start) }, (_, index) => {
        const contactId = ids[(start + index) % ids.length] ?? '';
        const eventId = newId();
        return platform.store.append([
          {
            streamId: `trackedEvent-${eventId}`,
            expectedRevision: 'no_stream',
            events: [
              {
                id: eventId,
                type: 'EventTracked',
                data: { name: 'page-view', contactId, email: `x@example.org`, data: { path: '/' } },
                metadata: { projectId, correlationId: 'bench' },
              },
            ],
          },
        ]);
      }),
    );
  }
  const head = await platform.store.headPosition();
  for (const consumer of service.projections()) await consumer.waitFor(head, 600_000);
  await service.stop();
  await platform.close();
  figure('restart.events_in_log', head, 'events');
}
figure('restart.generation_time', (performance.now() - generated) / 1000, 's');

const warm = await startStamp({ STAMP_DATA_DIR: dataDir });
const warmRss = warm.rss();
await warm.stop();
figure('restart.time_to_ready', warm.startMs, 'ms');
figure('restart.rss_after_start', Math.round(warmRss / 2 ** 20), 'MiB');
