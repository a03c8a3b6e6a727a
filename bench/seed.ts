import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';

import { createAccountsService } from '@stamp/accounts';
import { createContactsService } from '@stamp/contacts';
import {
  createLogger,
  DnsResolver,
  type EventStore,
  openEmbeddedPlatform,
  Secrets,
} from '@stamp/platform';

import { startStamp } from './harness.ts';

const plans = ['free', 'pro', 'team', 'enterprise'];
const countries = ['FR', 'DE', 'US', 'JP', 'BR', 'IN', 'NG', 'PL'];

/** The email address of seeded contact `index`. */
export const seededEmail = (index: number): string =>
  `user${index}.${(index * 2654435761) % 1_000_003}@example${index % 100}.org`;

/** The plan of seeded contact `index` (`free`, `pro`, `team`, `enterprise` in turn). */
export const seededPlan = (index: number): string => plans[index % plans.length] ?? 'free';

/**
 * Seeds `count` contacts into the fresh data folder `dataDir` (the first start creates the
 * bootstrap project), through the contacts service's command API without projections (two events
 * each: the contact and its email claim), 1000 at a time. `extra` may append more for each batch
 * (given the contacts' indexes and ids). The views are built afterwards by `stamp views:rebuild`.
 * @returns the project id.
 */
export async function seedContacts(
  dataDir: string,
  count: number,
  extra?: (
    store: EventStore,
    projectId: string,
    batch: { index: number; id: string }[],
  ) => Promise<void>,
): Promise<string> {
  const logger = createLogger({ level: 'warn' });
  await (await startStamp({ STAMP_DATA_DIR: dataDir })).stop();
  const platform = openEmbeddedPlatform({ dataDir, logger });
  const base = {
    store: platform.store,
    bus: platform.bus,
    views: platform.views,
    logger,
    awaitViews: async () => undefined,
  };
  const project = await createAccountsService({
    ...base,
    secrets: new Secrets(randomBytes(32)),
    publicUrl: 'http://localhost',
    signupOpen: false,
  }).api.defaultProjectId();
  if (project === null) throw new Error('the first start created no project');
  const service = createContactsService({
    ...base,
    resolver: new DnsResolver(),
    secrets: new Secrets(randomBytes(32)),
  });
  const size = 1000;
  for (let start = 0; start < count; start += size) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(size, count - start) }, async (_, offset) => {
        const index = start + offset;
        const data: Record<string, string | number | boolean> = {
          plan: seededPlan(index),
          country: countries[(index * 7) % countries.length] ?? 'FR',
          seats: index % 50,
        };
        if (index % 3 === 0)
          data.signedUpAt = new Date(1_700_000_000_000 + index * 1000).toISOString();
        if (index % 10 === 0) data.beta = true;
        const { contactId } = await service.api.upsertRecipient({
          projectId: project,
          email: seededEmail(index),
          data,
          defaultSubscribed: true,
          correlationId: 'bench',
        });
        return { index, id: contactId };
      }),
    );
    await extra?.(platform.store, project, batch);
  }
  await platform.close();
  return project;
}

/**
 * Builds every view of the data folder from its log with `stamp views:rebuild`, as a user would.
 * @returns the rebuild's duration, s.
 * @throws Error when the rebuild fails.
 */
export function rebuildViews(dataDir: string): number {
  const rebuild = spawnSync(process.execPath, ['services/lite/src/cli.ts', 'views:rebuild'], {
    env: { ...process.env, STAMP_DATA_DIR: dataDir, STAMP_LOG_LEVEL: 'warn' },
    encoding: 'utf8',
  });
  if (rebuild.status !== 0) throw new Error(`views:rebuild failed: ${rebuild.stderr}`);
  return Number(/in ([\d.]+) s/.exec(rebuild.stdout)?.[1] ?? 'NaN');
}
