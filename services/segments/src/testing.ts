/**
 * The test bench of the segments service: the real contacts service and the segments service on
 * one in-memory embedded platform, started, with their routers joined.
 */
import { randomBytes } from 'node:crypto';

import { createContactsService } from '@stamp/contacts';
import { awaitViewsOf, type ServiceDeps, type ServiceModule } from '@stamp/http-kit';
import {
  createLogger,
  DnsResolver,
  type EmbeddedPlatform,
  type LeaseStore,
  openEmbeddedPlatform,
  type Resolver,
  Secrets,
} from '@stamp/platform';
import { type Router } from 'express';

import { createSegmentsService, type SegmentsServiceDeps } from './service.ts';

/** A running bench; `close()` stops the modules and closes the platform. */
export interface SegmentsBench {
  platform: EmbeddedPlatform;
  segments: ReturnType<typeof createSegmentsService>;
  /** The contacts, segments and `extra` routers, in that order. */
  routers: Router[];
  close(): Promise<void>;
}

/**
 * Starts the bench. `extra` builds more modules on the same platform (for example the activity
 * service), started after the contacts and before the segments; `options` are passed to the
 * segments service.
 */
export async function startSegmentsBench(
  options: Partial<Pick<SegmentsServiceDeps, 'timers' | 'now'>> = {},
  extra: (
    deps: ServiceDeps & { leases: LeaseStore; resolver: Resolver; secrets: Secrets },
  ) => (ServiceModule & { router?: Router })[] = () => [],
): Promise<SegmentsBench> {
  const platform = openEmbeddedPlatform({
    dataDir: ':memory:',
    logger: createLogger({ level: 'silent' }),
  });
  const modules: ServiceModule[] = [];
  const base: ServiceDeps = {
    store: platform.store,
    bus: platform.bus,
    views: platform.views,
    logger: createLogger({ level: 'silent' }),
    awaitViews: awaitViewsOf(modules),
  };
  const resolver = new DnsResolver({ servers: ['127.0.0.1:9'] });
  const secrets = new Secrets(randomBytes(32));
  const contacts = createContactsService({ ...base, resolver, secrets });
  const others = extra({ ...base, leases: platform.leases, resolver, secrets });
  const segments = createSegmentsService({
    ...base,
    leases: platform.leases,
    contacts: contacts.api,
    ...options,
  });
  modules.push(contacts, ...others, segments);
  for (const module of modules) await module.start();
  return {
    platform,
    segments,
    routers: [
      contacts.router,
      segments.router,
      ...others.flatMap((module) => (module.router === undefined ? [] : [module.router])),
    ],
    async close() {
      for (const module of [...modules].reverse()) await module.stop();
      await platform.close();
    },
  };
}
