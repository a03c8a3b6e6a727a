import type { Logger } from '@stamp/platform';
import type { Request, RequestHandler, Response } from 'express';
import { pinoHttp } from 'pino-http';

import { requestIdOf } from './envelope.ts';

/** Options of {@link requestLogger}. */
export interface RequestLoggerOptions {
  /** Paths that are not logged when they succeed (probes), `['/healthz', '/readyz']` by default. */
  ignorePaths?: readonly string[];
}

/** Query parameters whose values are credentials (an OAuth code and state, a link's token). */
const SECRET_PARAMETERS = /([?&](?:code|state|token)=)[^&#]*/gi;

/** `url` with the values of credential query parameters replaced by `[redacted]`. */
export function redactUrl(url: string): string {
  return url.replace(SECRET_PARAMETERS, '$1[redacted]');
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
 * not logged, so API keys and session cookies never reach the logs, nor the values of the query
 * parameters `code`, `state` and `token` (OAuth callbacks, emailed links). 5xx log at `error`, 4xx at `warn`, others `info`.
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
      req: (req: SerializedRequest) => ({
        id: req.id,
        method: req.method,
        url: typeof req.url === 'string' ? redactUrl(req.url) : req.url,
      }),
      res: (res: SerializedResponse) => ({ statusCode: res.statusCode }),
    },
  });
  return (req: Request, res: Response, next) => {
    middleware(req, res, next);
  };
}
