/**
 * How the API reads request bodies: within a time limit, only once the request is admitted, as
 * JSON of a bounded size and nesting depth; and what happens to a body left unread.
 */
import express, {
  type NextFunction,
  type Request,
  type RequestHandler,
  type Response,
} from 'express';

import { sendError } from './envelope.ts';
import { ApiError } from './errors.ts';

/** Time a client has to send a request body once its headers arrived, ms (default). */
export const DEFAULT_BODY_TIMEOUT_MS = 60_000;
/**
 * Bytes of a body still read after an answer sent before the body was (for example 401 for a bad
 * key, 413, 429): a larger or unbounded body closes the connection after the answer instead.
 */
export const DEFAULT_DRAIN_BYTES = 8 * 1024;
/**
 * Time the rest of such a body has to arrive once the answer is sent, ms; the connection is
 * closed when it has not.
 */
export const DEFAULT_DRAIN_MS = 2000;
/** Deepest nesting of arrays and objects a JSON body may have (default). */
export const DEFAULT_MAX_JSON_DEPTH = 64;

/** Options of {@link bodyGuard}. */
export interface BodyGuardOptions {
  /** {@link DEFAULT_BODY_TIMEOUT_MS} when absent. */
  timeoutMs?: number;
  /** {@link DEFAULT_DRAIN_BYTES} when absent. */
  drainBytes?: number;
  /** {@link DEFAULT_DRAIN_MS} when absent. */
  drainMs?: number;
}

/** Whether the request announces a body (RFC 9112 §6.3: Transfer-Encoding, or Content-Length > 0). */
function announcesBody(req: Request): boolean {
  if (req.headers['transfer-encoding'] !== undefined) return true;
  const length = Number(req.headers['content-length'] ?? 0);
  return !Number.isFinite(length) || length > 0;
}

/**
 * Guards the connection against bodies (mount first):
 * - a body not received completely within `timeoutMs` of the request's arrival is answered 408
 *   REQUEST_TIMEOUT in the error envelope and the connection closed (or just closed when an answer
 *   was already under way);
 * - an answer sent before the body was received (refused before reading it: 401, 413, 429, …)
 *   keeps the connection only when at most `drainBytes` remain announced, and only if they arrive
 *   within `drainMs` of the answer; a larger body, or one of unknown length (chunked), gets
 *   `Connection: close`, so it is never read.
 */
export function bodyGuard(options: BodyGuardOptions = {}): RequestHandler {
  const timeoutMs = options.timeoutMs ?? DEFAULT_BODY_TIMEOUT_MS;
  const drainBytes = options.drainBytes ?? DEFAULT_DRAIN_BYTES;
  const drainMs = Math.min(options.drainMs ?? DEFAULT_DRAIN_MS, timeoutMs);
  return (req: Request, res: Response, next: NextFunction) => {
    if (!announcesBody(req) || req.complete) {
      next();
      return;
    }
    let timer = setTimeout(() => {
      if (req.complete) return;
      if (res.headersSent) {
        req.socket.destroy();
        return;
      }
      sendError(
        req,
        res,
        new ApiError(
          408,
          'REQUEST_TIMEOUT',
          `The request body was not received within ${timeoutMs} ms`,
          {
            suggestion: 'Send the whole body at once, or retry on a faster connection.',
            headers: { Connection: 'close' },
          },
        ),
      );
    }, timeoutMs);
    timer.unref();
    const stop = (): void => {
      clearTimeout(timer);
    };
    req.once('end', stop);
    req.once('close', stop);
    res.once('finish', () => {
      clearTimeout(timer);
      if (req.complete) return;
      // Answered before the whole body came: what is still drained must come at once.
      timer = setTimeout(() => {
        if (!req.complete) req.socket.destroy();
      }, drainMs);
      timer.unref();
    });

    const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => Response;
    res.writeHead = ((...args: unknown[]) => {
      if (!req.complete) {
        const announced = Number(req.headers['content-length']);
        const unbounded = req.headers['transfer-encoding'] !== undefined || !(announced >= 0);
        if (unbounded || announced > drainBytes) res.setHeader('Connection', 'close');
      }
      return writeHead(...args);
    }) as Response['writeHead'];
    next();
  };
}

/** Nesting depth of a JSON value: 0 for a scalar, 1 for a flat array or object. Iterative. */
export function jsonDepth(value: unknown, stopAbove = Number.POSITIVE_INFINITY): number {
  let deepest = 0;
  const pending: [unknown, number][] = [[value, 1]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [item, depth] = next;
    if (item === null || typeof item !== 'object') continue;
    deepest = Math.max(deepest, depth);
    if (deepest > stopAbove) return deepest;
    for (const child of Array.isArray(item) ? item : Object.values(item)) {
      if (child !== null && typeof child === 'object') pending.push([child, depth + 1]);
    }
  }
  return deepest;
}

/** Options of {@link jsonBody}. */
export interface JsonBodyOptions {
  /** Largest body, bytes (413 PAYLOAD_TOO_LARGE beyond). */
  limitBytes: number;
  /** {@link DEFAULT_MAX_JSON_DEPTH} when absent. */
  maxDepth?: number;
}

const tooLarge = (limitBytes: number): ApiError =>
  new ApiError(413, 'PAYLOAD_TOO_LARGE', 'Request body is too large', {
    suggestion: `Send at most ${limitBytes} bytes.`,
  });

/**
 * Parses JSON bodies (`express.json`: malformed → 400 BAD_REQUEST) and refuses a document nested
 * deeper than `maxDepth` arrays and objects with 400 BAD_REQUEST, before any route, validator or
 * idempotency hash walks it. A body above `limitBytes` is 413 PAYLOAD_TOO_LARGE as soon as that
 * is known: at once when its Content-Length says so (nothing is read), at the first byte beyond
 * the limit when it is chunked; the rest is never read (see {@link bodyGuard}).
 */
export function jsonBody(options: JsonBodyOptions): RequestHandler {
  const maxDepth = options.maxDepth ?? DEFAULT_MAX_JSON_DEPTH;
  const limitBytes = options.limitBytes;
  const parseJson: RequestHandler = express.json({ limit: limitBytes });
  return (req: Request, res: Response, next: NextFunction) => {
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > limitBytes && req.is('application/json')) {
      next(tooLarge(limitBytes));
      return;
    }
    let settled = false;
    const settle = (error?: unknown): void => {
      if (settled) return;
      settled = true;
      if (error !== undefined) {
        next(error);
        return;
      }
      if (jsonDepth(req.body, maxDepth) > maxDepth) {
        next(
          new ApiError(400, 'BAD_REQUEST', `JSON body nests deeper than ${maxDepth} levels`, {
            suggestion: `Send arrays and objects nested at most ${maxDepth} levels deep.`,
          }),
        );
        return;
      }
      next();
    };
    // express.json reads a chunked body to its end before it reports it too large: count here.
    if (req.headers['transfer-encoding'] !== undefined && req.is('application/json')) {
      let received = 0;
      const count = (chunk: Buffer): void => {
        received += chunk.length;
        if (received <= limitBytes) return;
        req.off('data', count);
        settle(tooLarge(limitBytes));
      };
      req.on('data', count);
    }
    parseJson(req, res, settle);
  };
}
