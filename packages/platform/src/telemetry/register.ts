/**
 * Starts OpenTelemetry for the process (see {@link startTelemetry}) as a side effect of being
 * imported. An entry point imports it FIRST, so the SDK runs before the application's modules
 * are evaluated and create their Express apps:
 *
 *     import { telemetry } from '@stamp/platform/telemetry/register.ts';
 *     import { startStamp } from './app.ts';
 *     …
 *     await telemetry.shutdown(); // on SIGTERM/SIGINT, after the app stopped: flushes spans
 *
 * A static import is enough under native ESM: no loader hook (`--import`, `module.register`) is
 * needed, because {@link startTelemetry} loads the instrumented modules through the CommonJS
 * loader, which patches the module objects that ES imports share.
 *
 * `service.name` is `OTEL_SERVICE_NAME`, else `stamp-<name>` for an entry script under
 * `services/<name>/`, else `stamp`. Start-up messages go to a pino logger at `STAMP_LOG_LEVEL`
 * (when it is a pino level; `info` otherwise).
 */
import pino from 'pino';

import { createLogger } from '../logger.ts';
import { startTelemetry, type Telemetry } from './telemetry.ts';

/** Service name for an entry script path: `stamp-<name>` under `services/<name>/`, else `stamp`. */
export function serviceNameOf(entry: string | undefined): string {
  const match = /(?:^|[\\/])services[\\/]([^\\/]+)[\\/]/.exec(entry ?? '');
  return match?.[1] === undefined ? 'stamp' : `stamp-${match[1]}`;
}

const level = process.env.STAMP_LOG_LEVEL;

/** The process's telemetry, started when this module was first imported. */
export const telemetry: Telemetry = startTelemetry({
  serviceName: serviceNameOf(process.argv[1]),
  logger: createLogger({
    level: level !== undefined && Object.hasOwn(pino.levels.values, level) ? level : 'info',
    name: 'telemetry',
  }),
});
