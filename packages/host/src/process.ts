import {
  ApiError,
  errorHandler,
  listen,
  type ListeningServer,
  notFoundHandler,
  requestId,
  requestLogger,
  routedRouters,
  type ServiceModule,
} from '@stamp/http-kit';
import { boundHeapGrowth, ConfigError, createLogger, type Logger } from '@stamp/platform';
import express, { type Router } from 'express';
import type { z } from 'zod';

import { callerFromGateway, requireInternalToken } from './remote.ts';
import type { ProcessEnv } from './config.ts';

/** What a service's entry point builds once its configuration is read. */
export interface ProcessParts {
  /** Services hosted by the process; their routers are served behind the internal token. */
  modules: ServiceModule[];
  /** Internal API routers (`internalApiRouter`), also behind the internal token. */
  internal?: Router[];
  /**
   * A complete Express app to serve instead of the service routers (the gateway), with its own
   * `/healthz` and `/readyz`.
   */
  app?: express.Express;
  /** Extra readiness condition (dependencies reachable, consumers assigned). */
  isReady?: () => boolean;
  /** Runs once the process listens, before it reports ready (for example a bootstrap). */
  afterStart?: () => Promise<void>;
  /** Runs after the modules stopped: closes the platform and clients. */
  close(): Promise<void>;
}

/** A running service process (see {@link startProcess}). */
export interface RunningProcess {
  url: string;
  server: ListeningServer;
  /** Graceful stop: not ready, drain HTTP, stop background work (checkpoints), close adapters. */
  stop(): Promise<void>;
}

/** Largest JSON body a service accepts from the gateway, bytes (the gateway's limit). */
const BODY_LIMIT_BYTES = 45 * 1024 * 1024;

/**
 * Starts a service's HTTP server: `GET /healthz` (alive), `GET /readyz` (200 once started and
 * `isReady`, else 503), then, behind the internal token, the caller set by the gateway, JSON bodies,
 * the modules' public and authenticated routers and the internal APIs, and the error envelope.
 */
export async function startProcess(
  name: string,
  env: ProcessEnv,
  logger: Logger,
  build: () => Promise<ProcessParts>,
): Promise<RunningProcess> {
  const parts = await build();
  for (const module of parts.modules) await module.start();
  let ready = false;
  const app = parts.app ?? express();
  if (parts.app === undefined) {
    if (env.STAMP_INTERNAL_TOKEN === undefined) {
      throw new ConfigError('invalid configuration:\n  STAMP_INTERNAL_TOKEN: required');
    }
    app.disable('x-powered-by');
    app.set('etag', false);
    app.get('/healthz', (_req, res) => {
      res.json({ status: 'ok', service: name });
    });
    app.get('/readyz', (_req, res) => {
      if (ready && (parts.isReady?.() ?? true)) res.json({ status: 'ready', service: name });
      else res.status(503).json({ status: 'starting', service: name });
    });
    app.use(requestId());
    app.use(requestLogger(logger));
    app.use(requireInternalToken(env.STAMP_INTERNAL_TOKEN));
    app.use(callerFromGateway());
    app.use(express.json({ limit: BODY_LIMIT_BYTES }));
    for (const { publicRouter, router } of parts.modules.map(routedRouters)) {
      if (publicRouter !== undefined) app.use(publicRouter);
      if (router !== undefined) app.use(router);
    }
    for (const router of parts.internal ?? []) app.use(router);
    app.use(notFoundHandler());
    app.use(errorHandler(logger));
  }
  const server = await listen(app, { port: env.STAMP_PORT, host: env.STAMP_HOST });
  await parts.afterStart?.();
  ready = true;
  logger.info({ service: name, url: server.url }, 'service is listening');
  let stopping: Promise<void> | undefined;
  return {
    url: server.url,
    server,
    stop() {
      stopping ??= (async () => {
        ready = false;
        await server.close();
        for (const module of [...parts.modules].reverse()) await module.stop();
        await parts.close();
      })();
      return stopping;
    },
  };
}

/**
 * The `main` of a service's entry point: bounds the growth of V8's heap ({@link boundHeapGrowth}),
 * reads and validates the environment (exit 2 naming each bad variable), starts the process, and
 * stops it gracefully on SIGTERM/SIGINT (exit 0; 1 when the shutdown failed), then flushes the
 * process's `telemetry` (spans not yet exported).
 */
export function runMain<S extends z.ZodType<ProcessEnv>>(
  name: string,
  schema: S,
  start: (env: z.infer<S>, logger: Logger) => Promise<RunningProcess>,
  telemetry?: { shutdown(): Promise<void> },
): void {
  boundHeapGrowth();
  const parsed = schema.safeParse(process.env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => `  ${issue.path.join('.')}: ${issue.message}`);
    process.stderr.write(`${name}: invalid configuration:\n${lines.join('\n')}\n`);
    process.exit(2);
  }
  const env = parsed.data;
  const logger = createLogger({ level: env.STAMP_LOG_LEVEL }).child({ service: name });
  start(env, logger).then(
    (running) => {
      let stopping = false;
      const stop = (signal: string): void => {
        if (stopping) return;
        stopping = true;
        logger.info({ signal }, 'draining in-flight work');
        running
          .stop()
          .then(() => telemetry?.shutdown())
          .then(
            () => process.exit(0),
            (error: unknown) => {
              logger.error({ err: error }, 'shutdown failed');
              process.exit(1);
            },
          );
      };
      process.on('SIGTERM', () => {
        stop('SIGTERM');
      });
      process.on('SIGINT', () => {
        stop('SIGINT');
      });
    },
    (error: unknown) => {
      if (error instanceof ConfigError || error instanceof ApiError) {
        process.stderr.write(`${name}: ${error.message}\n`);
        process.exit(2);
      }
      logger.fatal({ err: error }, 'service did not start');
      process.exit(1);
    },
  );
}
