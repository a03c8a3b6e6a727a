import type { Logger } from '@stamp/platform';
import type { Request, RequestHandler, Response } from 'express';
import { pinoHttp } from 'pino-http';

import { requestIdOf } from './envelope.ts';

/** Options of {@link requestLogger}. */
export interface RequestLoggerOptions {
  /** Paths that are not logged when they succeed (probes), `['/healthz', '/readyz']` by default. */
  ignorePaths?: readonly string[];
}

interface SerializedRequest {
  id?: unknown;
  method?: unknown;
  url?: unknown;
}

interface SerializedResponse {
  statusCode?: unknown;
}

/**
 * pino-http request logging: one line per request with method, url, status, response time and
 * the request id (`reqId`, the same id as `X-Request-ID`; mount after `requestId()`). Headers are
 * not logged, so API keys never reach the logs. 5xx log at `error`, 4xx at `warn`, others `info`.
 */
export function requestLogger(logger: Logger, options: RequestLoggerOptions = {}): RequestHandler {
  const ignore = new Set(options.ignorePaths ?? ['/healthz', '/readyz']);
  const middleware = pinoHttp({
    logger,
    quietReqLogger: true,
    genReqId: (_req, res) => requestIdOf(res as unknown as Response),
    autoLogging: { ignore: (req) => ignore.has((req.url ?? '').split('?')[0] ?? '') },
    customLogLevel: (_req, res, error) => {
      if (error !== undefined || res.statusCode >= 500) return 'error';
      if (res.statusCode >= 400) return 'warn';
      return 'info';
    },
    serializers: {
      req: (req: SerializedRequest) => ({ id: req.id, method: req.method, url: req.url }),
      res: (res: SerializedResponse) => ({ statusCode: res.statusCode }),
    },
  });
  return (req: Request, res: Response, next) => {
    middleware(req, res, next);
  };
}
