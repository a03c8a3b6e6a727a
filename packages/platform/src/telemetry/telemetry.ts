import { createRequire, syncBuiltinESMExports } from 'node:module';

import {
  context,
  type DiagLogger,
  diag,
  DiagLogLevel,
  propagation,
  trace,
} from '@opentelemetry/api';
import { diagLogLevelFromString, getBooleanFromEnv, getStringFromEnv } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { ExpressInstrumentation, ExpressLayerType } from '@opentelemetry/instrumentation-express';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { NodeSDK } from '@opentelemetry/sdk-node';
import {
  BatchSpanProcessor,
  NoopSpanProcessor,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace';
import type { Logger } from 'pino';

/** Request paths that never get a server span: liveness and readiness probes. */
const UNTRACED_PATHS: ReadonlySet<string> = new Set(['/healthz', '/readyz']);

/** Options of {@link startTelemetry}. */
export interface TelemetryOptions {
  /** `service.name` of the process's resource, unless `OTEL_SERVICE_NAME` is set (it wins). */
  serviceName: string;
  /** Receives one line saying where traces go, and the SDK's own warnings and errors. */
  logger?: Logger;
  /**
   * Extra span processors, added before the OTLP exporter's (tests pass a `SimpleSpanProcessor`
   * over an `InMemorySpanExporter`).
   */
  spanProcessors?: SpanProcessor[];
}

/** A started OpenTelemetry SDK (see {@link startTelemetry}). */
export interface Telemetry {
  /** Whether the SDK runs (false when `OTEL_SDK_DISABLED=true`). */
  readonly enabled: boolean;
  /**
   * Flushes and stops the span processors (the exporter sends what it holds), then removes the
   * instrumentations' patches and the global tracer provider, context manager and propagator,
   * so that another SDK can be started in the same process. Idempotent; never rejects.
   */
  shutdown(): Promise<void>;
}

let running = false;

/**
 * Starts the OpenTelemetry Node SDK for this process: the `node:http`/`node:https` and Express
 * instrumentations (server spans named `<method> <route>` for incoming requests except
 * `/healthz` and `/readyz`, a span per Express route handler, client spans for outgoing
 * `http.request`; `fetch` is not instrumented), the AsyncLocalStorage context manager, the W3C
 * trace-context and baggage propagators, and a resource whose `service.name` is
 * `OTEL_SERVICE_NAME` or `options.serviceName`.
 *
 * Traces are exported with OTLP over HTTP (JSON) only when `OTEL_EXPORTER_OTLP_ENDPOINT` or
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` is set; the exporter reads the other standard `OTEL_*`
 * variables itself (headers, timeout). Without them spans get ids and context still propagates
 * (event metadata, HTTP headers, log fields) but nothing is exported. Metrics and logs are not
 * configured here. `OTEL_SDK_DISABLED=true` turns everything off: the returned handle is inert.
 *
 * Call it before the application creates its Express apps (entry points: import `register.ts`
 * first); it patches `node:http`, `node:https` and `express` itself, so no ESM loader hook is
 * needed. The SDK is global: one per process at a time.
 * @throws Error when telemetry is already running in this process (shut it down first).
 */
export function startTelemetry(options: TelemetryOptions): Telemetry {
  if (getBooleanFromEnv('OTEL_SDK_DISABLED')) {
    options.logger?.info('OpenTelemetry disabled (OTEL_SDK_DISABLED)');
    return { enabled: false, shutdown: () => Promise.resolve() };
  }
  if (running) throw new Error('OpenTelemetry is already running in this process');
  running = true;

  const endpoint =
    getStringFromEnv('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT') ??
    getStringFromEnv('OTEL_EXPORTER_OTLP_ENDPOINT');
  const spanProcessors = [...(options.spanProcessors ?? [])];
  if (endpoint !== undefined)
    spanProcessors.push(new BatchSpanProcessor({ exporter: new OTLPTraceExporter() }));
  // A tracer provider exists even with nothing to export, so spans get real ids that propagate.
  if (spanProcessors.length === 0) spanProcessors.push(new NoopSpanProcessor());

  const instrumentations = [
    new HttpInstrumentation({
      ignoreIncomingRequestHook: (request) =>
        UNTRACED_PATHS.has((request.url ?? '').split('?', 1)[0] ?? ''),
    }),
    // One span per route handler; middleware and router layers (some 20 per request through the
    // gateway) are skipped. The server span still gets `http.route` from the matched route.
    new ExpressInstrumentation({
      ignoreLayersType: [ExpressLayerType.MIDDLEWARE, ExpressLayerType.ROUTER],
    }),
  ];
  const serviceName = getStringFromEnv('OTEL_SERVICE_NAME') ?? options.serviceName;
  const sdk = new NodeSDK({
    serviceName,
    instrumentations,
    spanProcessors,
    // Traces only: without these the SDK would start OTLP log and metric exporters from env.
    logRecordProcessors: [],
    metricReaders: [],
  });
  if (options.logger !== undefined) {
    const level = getStringFromEnv('OTEL_LOG_LEVEL');
    diag.setLogger(diagToPino(options.logger), {
      logLevel: level === undefined ? DiagLogLevel.WARN : diagLogLevelFromString(level),
      suppressOverrideMessage: true,
    });
  }
  try {
    sdk.start();
    patchInstrumentedModules();
  } catch (error) {
    running = false;
    throw error;
  }
  options.logger?.info(
    { serviceName, otlpEndpoint: endpoint ?? null },
    endpoint === undefined
      ? 'OpenTelemetry started; no OTLP endpoint set, traces are not exported'
      : 'OpenTelemetry started; exporting traces over OTLP/HTTP',
  );

  let stopped: Promise<void> | undefined;
  return {
    enabled: true,
    shutdown() {
      stopped ??= sdk
        .shutdown()
        .catch((error: unknown) => {
          options.logger?.warn({ err: error }, 'OpenTelemetry shutdown failed');
        })
        .finally(() => {
          for (const instrumentation of instrumentations) instrumentation.disable();
          syncBuiltinESMExports();
          trace.disable();
          context.disable();
          propagation.disable();
          diag.disable();
          running = false;
        });
      return stopped;
    },
  };
}

/** Modules the two instrumentations patch (`node:http`, `node:https`, `express`). */
const INSTRUMENTED_MODULES = ['http', 'https', 'express'] as const;

/**
 * Makes the instrumentations patch the modules they instrument, now. They patch a module when
 * it is loaded through `require` or `process.getBuiltinModule` (their require-in-the-middle
 * hook) or through an ESM loader hook (import-in-the-middle, only when registered with
 * `--import`). A native ES module importing `node:http` or the CommonJS package `express` goes
 * through neither, so nothing would be patched. Loading each instrumented module here through
 * those hooked functions patches the module objects every importer shares: `node:http` and
 * `node:https` (`Server.prototype.emit`, `request`, `get`) and `express` (its `application`
 * and `Router.prototype`), resolved from the entry script (`process.argv[1]`), else from the
 * working directory, and skipped when not installed. Only `app`s created afterwards are traced,
 * hence "start telemetry first". `syncBuiltinESMExports` then refreshes named imports such as
 * `import { request } from 'node:http'`. The instrumentations' `disable()` removes the patches.
 */
function patchInstrumentedModules(): void {
  for (const name of INSTRUMENTED_MODULES) loadModule(name);
  syncBuiltinESMExports();
}

/** Loads a built-in module, or a package resolved from the entry script or the working directory. */
function loadModule(name: string): void {
  if (process.getBuiltinModule(name) !== undefined) return;
  for (const base of [process.argv[1], `${process.cwd()}/`]) {
    if (base === undefined || base === '') continue;
    try {
      createRequire(base)(name);
      return;
    } catch {
      // Not resolvable from this base: try the next one; absent everywhere: not patched.
    }
  }
}

/** An OpenTelemetry diagnostic logger writing to pino. */
function diagToPino(logger: Logger): DiagLogger {
  const child = logger.child({ component: 'opentelemetry' });
  const write =
    (level: 'error' | 'warn' | 'info' | 'debug' | 'trace') =>
    (message: string, ...args: unknown[]): void => {
      if (args.length === 0) child[level](message);
      else child[level]({ args }, message);
    };
  return {
    error: write('error'),
    warn: write('warn'),
    info: write('info'),
    debug: write('debug'),
    verbose: write('trace'),
  };
}
