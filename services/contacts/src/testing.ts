/** Test harness: the contacts service on an in-memory embedded platform, served per project. */
import { randomBytes } from 'node:crypto';

import { awaitViewsOf, type ServiceModule } from '@stamp/http-kit';
import {
  createLogger,
  DnsResolver,
  type EmbeddedPlatform,
  openEmbeddedPlatform,
  Secrets,
} from '@stamp/platform';
import { serveRouter, type ServedRouter } from '@stamp/testkit/http.ts';

import { createContactsService } from './index.ts';

/** A started contacts service with one served router per project id asked for. */
export interface ContactsHarness {
  platform: EmbeddedPlatform;
  service: ReturnType<typeof createContactsService>;
  /** The service's routes as the given project (secret key). */
  as(projectId: string): Promise<ServedRouter>;
  close(): Promise<void>;
}

/** Starts the service on `openEmbeddedPlatform({dataDir: ':memory:'})`. */
export async function startContacts(): Promise<ContactsHarness> {
  const logger = createLogger({ level: 'silent' });
  const platform = openEmbeddedPlatform({ dataDir: ':memory:', logger });
  const modules: ServiceModule[] = [];
  const awaitViews = awaitViewsOf(modules);
  const service = createContactsService({
    store: platform.store,
    bus: platform.bus,
    views: platform.views,
    logger,
    awaitViews,
    resolver: new DnsResolver(),
    secrets: new Secrets(randomBytes(32)),
  });
  modules.push(service);
  await service.start();
  const served: ServedRouter[] = [];
  return {
    platform,
    service,
    async as(projectId) {
      const server = await serveRouter(service.router, { projectId, keyKind: 'secret' });
      served.push(server);
      return server;
    },
    async close() {
      for (const server of served) await server.close();
      await service.stop();
      await platform.close();
    },
  };
}
