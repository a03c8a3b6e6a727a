import type { Caller } from '@stamp/contracts';
import type { RequestHandler, Response } from 'express';
import { rateLimit, type Store } from 'express-rate-limit';

import { sendError } from './envelope.ts';
import { ApiError } from './errors.ts';

/** Options of {@link projectRateLimit}. */
export interface ProjectRateLimitOptions {
  /** Requests allowed per window and project (spec part 8: 1000). */
  limit: number;
  /** Window length in milliseconds (spec part 8: 60 000). */
  windowMs: number;
  /**
   * Counter store; the library's in-memory store by default (one process). Distributed mode
   * passes a shared store so every replica counts the same window.
   */
  store?: Store;
}

/** The project of the authenticated caller, or null before authentication. */
function projectOf(res: Response): string | null {
  const value = (res.locals as { caller?: Caller }).caller;
  return value === undefined ? null : value.projectId;
}

/**
 * Per-project rate limit (spec part 8, API reference "Errors"), built on `express-rate-limit`.
 * Mount it after authentication: requests are counted per `caller.projectId` (requests without a
 * caller are not limited here). Every response carries the IETF draft-8 `RateLimit` and
 * `RateLimit-Policy` headers; a request over the limit gets 429 RATE_LIMIT_EXCEEDED in the error
 * envelope with `Retry-After` (seconds until the window resets).
 */
export function projectRateLimit(options: ProjectRateLimitOptions): RequestHandler {
  const windowSeconds = Math.ceil(options.windowMs / 1000);
  return rateLimit({
    windowMs: options.windowMs,
    limit: options.limit,
    standardHeaders: 'draft-8',
    legacyHeaders: false,
    identifier: `${options.limit}-per-${windowSeconds}s`,
    skip: (_req, res) => projectOf(res) === null,
    keyGenerator: (_req, res) => `project:${projectOf(res) ?? ''}`,
    ...(options.store === undefined ? {} : { store: options.store }),
    // Keys are projects, not client addresses: the proxy and IP checks do not apply.
    validate: { xForwardedForHeader: false, forwardedHeader: false, trustProxy: false, ip: false },
    handler: (req, res) => {
      sendError(
        req,
        res,
        new ApiError(
          429,
          'RATE_LIMIT_EXCEEDED',
          `Rate limit exceeded: ${options.limit} requests per ${windowSeconds} seconds per project`,
          { suggestion: 'Wait the number of seconds in the Retry-After header, then retry.' },
        ),
      );
    },
  });
}
