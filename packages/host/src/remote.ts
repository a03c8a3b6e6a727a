import { request as httpRequest } from 'node:http';
import { timingSafeEqual } from 'node:crypto';

import { type Caller, pathIsUnder } from '@stamp/contracts';
import { ApiError, clientAddressOf, type FieldError, type ServiceModule } from '@stamp/http-kit';
import express, { type Request, type RequestHandler, type Response, Router } from 'express';

/** Header carrying the internal token on calls between processes. */
export const INTERNAL_TOKEN_HEADER = 'x-stamp-internal-token';
/** Header carrying the authenticated caller (JSON `Caller`) from the gateway to a service. */
export const CALLER_HEADER = 'x-stamp-caller';

/** The client's address as the gateway saw it, on forwarded requests. */
export const CLIENT_ADDRESS_HEADER = 'x-stamp-client-address';

/** Functions of a command or query API that take and return JSON values. */
type RemoteMethods<T> = {
  [K in keyof T]: T[K] extends (...args: infer A) => Promise<infer R>
    ? (...args: A) => Promise<R>
    : never;
};

function tokenMatches(given: string | undefined, token: string): boolean {
  if (given === undefined) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Refuses requests without the internal token (401 in the spec's envelope). Every route of a
 * service process except `/healthz` and `/readyz` sits behind it.
 */
export function requireInternalToken(token: string): RequestHandler {
  return (req, _res, next) => {
    if (tokenMatches(req.header(INTERNAL_TOKEN_HEADER), token)) next();
    else next(new ApiError(401, 'UNAUTHORIZED', 'Internal token missing or wrong'));
  };
}

/**
 * Sets `res.locals.caller` from the gateway's caller header and `res.locals.clientAddress` from
 * its client address header, so a service's routes read them as they do in embedded mode
 * (`caller(res)`, `clientAddressOf`).
 */
export function callerFromGateway(): RequestHandler {
  return (req, res, next) => {
    const address = req.header(CLIENT_ADDRESS_HEADER);
    if (address !== undefined) (res.locals as { clientAddress?: string }).clientAddress = address;
    const header = req.header(CALLER_HEADER);
    if (header !== undefined) {
      try {
        (res.locals as { caller?: Caller }).caller = JSON.parse(header) as Caller;
      } catch {
        next(new ApiError(400, 'BAD_REQUEST', 'Malformed caller header'));
        return;
      }
    }
    next();
  };
}

/**
 * Serves an in-process API object over internal HTTP: `POST /internal/<name>/<method>` with body
 * `{args: [...]}` answers `{result}`; a thrown error with a 4xx `status` keeps its status, code
 * and message (spec part 7 envelope), anything else is a 500 handled by the error handler.
 */
export function internalApiRouter<T extends object>(
  name: string,
  api: T,
  methods: readonly (keyof T & string)[],
): Router {
  const router = Router();
  for (const method of methods) {
    router.post(`/internal/${name}/${method}`, express.json({ limit: '1mb' }), async (req, res) => {
      const body = req.body as { args?: unknown };
      if (!Array.isArray(body.args)) {
        throw new ApiError(400, 'BAD_REQUEST', 'Body must be {"args": [...]}');
      }
      const fn = api[method] as (...args: unknown[]) => Promise<unknown>;
      const result = await fn.apply(api, body.args);
      res.json({ result: result ?? null });
    });
  }
  return router;
}

/** Options of {@link remoteApi} and {@link proxyModule}. */
export interface RemoteOptions {
  /** Base URL of the service process, for example `http://contacts:3002`. */
  url: string;
  /** The internal token shared by the processes. */
  token: string;
  /** Time limit of one call, ms (default 10 000). */
  timeoutMs?: number;
}

/**
 * A client of {@link internalApiRouter}: an object with the same methods as the in-process API,
 * so callers do not know whether the service runs beside them or in another process.
 * @throws ApiError with the service's status, code and message for its 4xx answers; Error for
 *   other failures (unreachable, 5xx, time-out).
 */
export function remoteApi<T extends object>(
  name: string,
  methods: readonly (keyof T & string)[],
  options: RemoteOptions,
): RemoteMethods<T> {
  const client: Record<string, (...args: unknown[]) => Promise<unknown>> = {};
  for (const method of methods) {
    client[method] = async (...args: unknown[]) => {
      const response = await fetch(`${options.url}/internal/${name}/${method}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', [INTERNAL_TOKEN_HEADER]: options.token },
        body: JSON.stringify({ args }),
        signal: AbortSignal.timeout(options.timeoutMs ?? 10_000),
      });
      const body = (await response.json()) as {
        result?: unknown;
        error?: { code?: string; message?: string; errors?: FieldError[] };
      };
      if (response.ok) return body.result;
      if (response.status < 500) {
        throw new ApiError(
          response.status,
          body.error?.code ?? 'BAD_REQUEST',
          body.error?.message ?? `${name}.${method} refused`,
          body.error?.errors === undefined ? {} : { errors: body.error.errors },
        );
      }
      throw new Error(`${name}.${method} failed with HTTP ${response.status}`);
    };
  }
  return client as RemoteMethods<T>;
}

/** Headers not forwarded by the proxy (hop-by-hop, or replaced by it). */
const DROPPED_REQUEST_HEADERS = new Set([
  'host',
  'connection',
  'keep-alive',
  'authorization',
  'content-length',
  'transfer-encoding',
  INTERNAL_TOKEN_HEADER,
  CALLER_HEADER,
  CLIENT_ADDRESS_HEADER,
]);
const DROPPED_RESPONSE_HEADERS = new Set([
  'connection',
  'keep-alive',
  'transfer-encoding',
  'content-length',
  'date',
]);

/**
 * A gateway module for a service in another process: its routers forward the requests under the
 * service's path prefixes to it, with the caller the gateway authenticated and the internal token,
 * and answer with the service's status, headers and body. JSON bodies the gateway already parsed
 * are sent again as JSON; other bodies (multipart uploads, forms) are streamed as received.
 */
export function proxyModule(
  name: string,
  routes: { authenticated: readonly string[]; public?: readonly string[] },
  options: RemoteOptions,
): ServiceModule {
  const target = new URL(options.url);
  const forward =
    (prefixes: readonly string[]): RequestHandler =>
    (req, res, next) => {
      if (!prefixes.some((prefix) => pathIsUnder(req.path, prefix))) {
        next();
        return;
      }
      proxy(req, res, target, options).catch(next);
    };
  return {
    name,
    router: Router().use(forward(routes.authenticated)),
    publicRouter: routes.public === undefined ? undefined : Router().use(forward(routes.public)),
    start: () => Promise.resolve(),
    stop: () => Promise.resolve(),
  };
}

async function proxy(
  req: Request,
  res: Response,
  target: URL,
  options: RemoteOptions,
): Promise<void> {
  const headers: Record<string, string | string[]> = {};
  for (const [header, value] of Object.entries(req.headers)) {
    if (value !== undefined && !DROPPED_REQUEST_HEADERS.has(header)) headers[header] = value;
  }
  headers[INTERNAL_TOKEN_HEADER] = options.token;
  headers[CLIENT_ADDRESS_HEADER] = clientAddressOf(req, res);
  const caller = (res.locals as { caller?: Caller }).caller;
  if (caller !== undefined) headers[CALLER_HEADER] = JSON.stringify(caller);
  // A body express.json() consumed is re-encoded; an unread one is streamed.
  // (Express 5 leaves req.body undefined unless a body parser read the request.)
  const parsed = (req.body as unknown) !== undefined;
  const body = parsed ? Buffer.from(JSON.stringify(req.body)) : undefined;
  if (body !== undefined) headers['content-length'] = String(body.length);
  else if (req.headers['content-length'] !== undefined) {
    headers['content-length'] = req.headers['content-length'];
  } else if (req.headers['transfer-encoding'] !== undefined) {
    headers['transfer-encoding'] = req.headers['transfer-encoding'];
  }

  const answer = await new Promise<{
    status: number;
    headers: Record<string, string | string[]>;
    body: Buffer;
  }>((resolve, reject) => {
    const outgoing = httpRequest(
      {
        protocol: target.protocol,
        hostname: target.hostname,
        port: target.port,
        method: req.method,
        path: req.originalUrl,
        headers,
        timeout: options.timeoutMs ?? 30_000,
      },
      (incoming) => {
        const chunks: Buffer[] = [];
        incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
        incoming.on('end', () => {
          const kept: Record<string, string | string[]> = {};
          for (const [header, value] of Object.entries(incoming.headers)) {
            if (value !== undefined && !DROPPED_RESPONSE_HEADERS.has(header)) kept[header] = value;
          }
          resolve({
            status: incoming.statusCode ?? 502,
            headers: kept,
            body: Buffer.concat(chunks),
          });
        });
        incoming.on('error', reject);
      },
    );
    outgoing.on('timeout', () => outgoing.destroy(new Error('service did not answer in time')));
    outgoing.on('error', reject);
    if (body !== undefined) outgoing.end(body);
    else req.pipe(outgoing);
  }).catch((error: unknown) => {
    throw new ApiError(503, 'SERVICE_UNAVAILABLE', 'The service is unavailable; retry shortly', {
      details: { reason: (error as Error).message },
      headers: { 'Retry-After': '1' },
    });
  });

  res.status(answer.status);
  for (const [header, value] of Object.entries(answer.headers)) res.setHeader(header, value);
  const type = String(answer.headers['content-type'] ?? '');
  // JSON goes through res.json so the gateway's idempotency layer can record it.
  if (type.startsWith('application/json') && answer.body.length > 0) {
    res.json(JSON.parse(answer.body.toString('utf8')));
  } else {
    res.end(answer.body);
  }
}
