/**
 * The test bench of the activity service: the service on an in-memory embedded platform,
 * started, with its router served on loopback for project `p1` (secret key).
 */
import { randomBytes } from 'node:crypto';

import type { AwaitViews } from '@stamp/contracts';
import { awaitViewsOf, type ServiceModule } from '@stamp/http-kit';
import {
  createLogger,
  DnsResolver,
  type EmbeddedPlatform,
  openEmbeddedPlatform,
  Secrets,
} from '@stamp/platform';
import { serveRouter, type ServedRouter } from '@stamp/testkit/http.ts';

import { type ActivityOptions, createActivityService } from './index.ts';

/** A running bench; `close()` stops the service and the platform. */
export interface ActivityBench {
  platform: EmbeddedPlatform;
  service: ReturnType<typeof createActivityService>;
  served: ServedRouter;
  awaitViews: AwaitViews;
  close(): Promise<void>;
}

/**
 * Starts the bench. Webhook targets may be private addresses when `allowPrivateTargets` (a
 * receiver on loopback); names resolve through a closed port (nothing resolves).
 */
export async function startActivityBench(
  options: ActivityOptions = {},
  allowPrivateTargets = false,
): Promise<ActivityBench> {
  const logger = createLogger({ level: 'silent' });
  const platform = openEmbeddedPlatform({ dataDir: ':memory:', logger });
  const modules: ServiceModule[] = [];
  const awaitViews = awaitViewsOf(modules);
  const service = createActivityService(
    {
      store: platform.store,
      bus: platform.bus,
      views: platform.views,
      logger,
      awaitViews,
      leases: platform.leases,
      secrets: new Secrets(randomBytes(32)),
      resolver: new DnsResolver({ servers: ['127.0.0.1:9'] }),
      allowPrivateTargets,
    },
    options,
  );
  modules.push(service);
  await service.start();
  const served = await serveRouter(service.router, { projectId: 'p1', keyKind: 'secret' });
  return {
    platform,
    service,
    served,
    awaitViews,
    async close() {
      await served.close();
      await service.stop();
      await platform.close();
    },
  };
}
