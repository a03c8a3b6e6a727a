import { awaitViewsOf, type ServiceDeps, type ServiceModule } from '@stamp/http-kit';
import { loadOrCreateSecret, type Logger, Secrets } from '@stamp/platform';
import type { Router } from 'express';
import type { z } from 'zod';

import type { ProcessEnv } from './config.ts';
import { openPlatform, type Platform } from './platform.ts';
import { runMain, startProcess, type RunningProcess } from './process.ts';

/** Bound of read-your-writes waits, ms (architecture brief). */
const VIEW_WAIT_MS = 2000;

/** What a service's entry point receives to create its service. */
export interface ServiceContext<E extends ProcessEnv> {
  env: E;
  logger: Logger;
  platform: Platform;
  /** Ports and read-your-writes over this process's own projections. */
  deps: ServiceDeps;
  /** The platform secret (`STAMP_SECRET`, else `<STAMP_DATA_DIR>/secret.key`). */
  secrets: Secrets;
}

/** What a service's entry point creates. */
export interface ServiceBuild {
  module: ServiceModule;
  /** Its internal API routers (`internalApiRouter`). */
  internal?: Router[];
  /** Runs once the process listens, before it reports ready (the first project's bootstrap). */
  afterStart?: () => Promise<void>;
  /** Closes what the entry point opened besides the platform. */
  close?: () => Promise<void>;
}

/**
 * Starts one service alone in its process on the adapters `env` chooses (architecture brief,
 * distributed mode): opens the platform, creates the service, serves its routes and internal
 * APIs behind the internal token, with `/healthz` and `/readyz`.
 */
export async function startService<E extends ProcessEnv>(
  name: string,
  env: E,
  logger: Logger,
  create: (context: ServiceContext<E>) => Promise<ServiceBuild> | ServiceBuild,
): Promise<RunningProcess> {
  const platform = await openPlatform(env, logger);
  const modules: ServiceModule[] = [];
  const deps: ServiceDeps = {
    store: platform.store,
    bus: platform.bus,
    views: platform.views,
    logger,
    awaitViews: awaitViewsOf(modules, VIEW_WAIT_MS),
  };
  const secrets = new Secrets(env.STAMP_SECRET ?? loadOrCreateSecret(env.STAMP_DATA_DIR));
  let built: ServiceBuild | undefined;
  try {
    built = await create({ env, logger, platform, deps, secrets });
  } catch (error) {
    await platform.close();
    throw error;
  }
  const service = built;
  modules.push(service.module);
  const running = await startProcess(name, env, logger, async () => ({
    modules,
    internal: service.internal,
    isReady: () => platform.consumersReady(),
    afterStart: service.afterStart,
    close: async () => {
      await service.close?.();
      await platform.close();
    },
  }));
  return running;
}

/** `main` of a service entry point: {@link runMain} around {@link startService}. */
export function runService<S extends z.ZodType<ProcessEnv>>(
  name: string,
  schema: S,
  create: (context: ServiceContext<z.infer<S>>) => Promise<ServiceBuild> | ServiceBuild,
  telemetry?: { shutdown(): Promise<void> },
): void {
  runMain(name, schema, (env, logger) => startService(name, env, logger, create), telemetry);
}
