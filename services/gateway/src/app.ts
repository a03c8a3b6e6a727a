import type { KeysApi } from '@stamp/contracts';
import { dashboardRouter } from '@stamp/dashboard';
import {
  bodyGuard,
  DEFAULT_BODY_TIMEOUT_MS,
  DEFAULT_MAX_JSON_DEPTH,
  errorHandler,
  idempotency,
  jsonBody,
  notFoundHandler,
  openApiDocument,
  type OpenApiDocument,
  projectRateLimit,
  requestId,
  requestLogger,
  routedRouters,
  type ServiceModule,
} from '@stamp/http-kit';
import type { Logger, ViewStore } from '@stamp/platform';
import cors from 'cors';
import express from 'express';

import { authenticate } from './auth.ts';
import {
  DOCS_INITIALIZER,
  DOCS_PAGE,
  DOCS_PATH,
  GATEWAY_ROUTES,
  OPENAPI_PATH,
  swaggerUiFolder,
} from './openapi.ts';

/** Options of {@link createGateway}. */
export interface GatewayOptions {
  logger: Logger;
  /** Resolves API keys and sessions to projects (the accounts service). */
  keys: KeysApi;
  /** STAMP_PUBLIC_URL: the origin of the dashboard, the only one a session may post from. */
  publicUrl: string;
  /**
   * Services whose `router` is mounted behind authentication, in order; their `publicRouter`s
   * are mounted before authentication. A service's routers see only the paths the route table
   * gives it (`routedRouters`).
   */
  modules: readonly ServiceModule[];
  /** View store holding the `idempotency` collection. */
  views: ViewStore;
  /** Per-project limit; 1000 requests per 60 000 ms by default (spec part 8). */
  rateLimit?: { limit: number; windowMs: number };
  /** Readiness for GET /readyz (dependencies reachable, consumers started). */
  isReady: () => boolean;
  /** Feature flags served by GET /config (spec part 4). */
  features: Record<string, boolean>;
  /** Largest accepted JSON body in bytes; 45 MB by default (a 40 MB message fits). */
  bodyLimitBytes?: number;
  /**
   * Time a client has to send a request body once its headers arrived, ms; 60 000 by default.
   * A slower body is answered 408 REQUEST_TIMEOUT and its connection closed.
   */
  bodyTimeoutMs?: number;
  /** Deepest nesting of arrays and objects in a JSON body; 64 by default (400 beyond). */
  maxJsonDepth?: number;
  /**
   * Makes the OpenAPI document served at `GET /openapi.json` and shown at `GET /docs`: the whole
   * API's (`stamp openapi`); without it, the document of the gateway's own routes. Called at the
   * first request for it, so a process that is never asked holds no document.
   */
  openApi?: () => OpenApiDocument | Promise<OpenApiDocument>;
  /**
   * Folder of the dashboard's production build (`@stamp/dashboard`'s `DASHBOARD_DIST`), served
   * at this origin; without it, no dashboard is served.
   */
  dashboardFolder?: string;
}

/** The files of `swagger-ui-dist` the reference page loads. */
const DOCS_ASSETS: ReadonlySet<string> = new Set([
  '/swagger-ui.css',
  '/swagger-ui-bundle.js',
  '/favicon-32x32.png',
  '/favicon-16x16.png',
]);

/** What the reference page may load: its own scripts and styles (Swagger UI styles inline too). */
const DOCS_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; " +
  "img-src 'self' data:; connect-src 'self'; font-src 'self' data:; frame-ancestors 'none'";

/** Default per-project rate limit (spec part 8). */
export const DEFAULT_RATE_LIMIT = { limit: 1000, windowMs: 60_000 } as const;

/** Default body limit: 45 MB, so a 40 MB message (spec part 8) plus JSON overhead fits. */
export const DEFAULT_BODY_LIMIT_BYTES = 45 * 1024 * 1024;

/**
 * The public HTTP gateway. Order: request id, request log, the body guard (a body not received
 * within `bodyTimeoutMs` → 408 REQUEST_TIMEOUT and the connection closed; an answer sent before
 * a body of more than 8 KiB was read closes the connection, so a refused request's body is never
 * read), unauthenticated probes and config (`GET /healthz` → `{status:'ok'}`, `GET /readyz` →
 * 200 `{status:'ready'}` or 503 `{status:'starting'}`, `GET /config` → `{features}`), the API
 * reference (`GET /openapi.json`: the OpenAPI document; `GET /docs`: Swagger UI, its assets
 * under `/docs/` from `swagger-ui-dist`), the dashboard's pages and files when `dashboardFolder`
 * is given (`@stamp/dashboard`: `/`, `/login`, …, `/p/<project>/…`, `/assets/…`), every
 * module's `publicRouter` (no API key; each reads only its own small form bodies), API-key or
 * session authentication (spec part 5; reads headers only, so a bad key is answered 401 before
 * a body is read), per-project rate limit (429 RATE_LIMIT_EXCEEDED), the JSON body (malformed → 400
 * BAD_REQUEST, too large → 413 PAYLOAD_TOO_LARGE, nested deeper than `maxJsonDepth` → 400
 * BAD_REQUEST), `Idempotency-Key` handling on POST /v1/send and /v1/track, every module's router,
 * 404 NOT_FOUND, and the error envelope (spec part 7).
 */
export function createGateway(options: GatewayOptions): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(requestId());
  app.use(requestLogger(options.logger));
  app.use(bodyGuard({ timeoutMs: options.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT_MS }));

  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/readyz', (_req, res) => {
    if (options.isReady()) res.json({ status: 'ready' });
    else res.status(503).json({ status: 'starting' });
  });
  app.get('/config', (_req, res) => {
    res.json({ features: options.features });
  });
  const makeOpenApi =
    options.openApi ??
    (() =>
      openApiDocument([{ service: 'gateway', routes: GATEWAY_ROUTES }], {
        title: 'Stamp gateway',
        version: '0.1.0',
      }));
  let openApi: Promise<OpenApiDocument> | undefined;
  app.get(OPENAPI_PATH, async (_req, res) => {
    openApi ??= Promise.resolve(makeOpenApi());
    res.json(await openApi);
  });
  app.get(DOCS_PATH, (_req, res) => {
    res.set('Content-Security-Policy', DOCS_CSP).type('html').send(DOCS_PAGE);
  });
  const assets = express.static(swaggerUiFolder(), { index: false, fallthrough: true });
  app.use(DOCS_PATH, (req, res, next) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      next();
    } else if (req.path === '/swagger-initializer.js') {
      res.type('js').send(DOCS_INITIALIZER);
    } else if (DOCS_ASSETS.has(req.path)) {
      assets(req, res, next);
    } else {
      next();
    }
  });

  if (options.dashboardFolder !== undefined) {
    const dashboard = dashboardRouter(options.dashboardFolder);
    // Its pages and files are only read: other methods pass it by (see `routedRouters`).
    app.use((req, res, next) => {
      if (req.method === 'GET' || req.method === 'HEAD') dashboard(req, res, next);
      else next();
    });
  }

  // Public keys are meant for browsers (spec part 5, rule 2): /v1/track answers CORS preflights
  // before authentication and allows any origin; credentials travel in the Authorization header.
  app.use(
    '/v1/track',
    cors({
      origin: '*',
      methods: ['POST'],
      allowedHeaders: ['Authorization', 'Content-Type', 'Idempotency-Key'],
      maxAge: 86_400,
    }),
  );
  // Routes without an API key (signed links in emails). Each parses the URL-encoded form
  // bodies of its own POST routes (`express.urlencoded` on the route), so form parsing never
  // applies to the authenticated API.
  const mounted = options.modules.map(routedRouters);
  for (const { publicRouter } of mounted) if (publicRouter !== undefined) app.use(publicRouter);
  app.use(authenticate(options.keys, { publicUrl: options.publicUrl }));
  app.use(projectRateLimit(options.rateLimit ?? DEFAULT_RATE_LIMIT));
  app.use(
    jsonBody({
      limitBytes: options.bodyLimitBytes ?? DEFAULT_BODY_LIMIT_BYTES,
      maxDepth: options.maxJsonDepth ?? DEFAULT_MAX_JSON_DEPTH,
    }),
  );
  app.use(idempotency({ views: options.views }));
  for (const { router } of mounted) if (router !== undefined) app.use(router);
  app.use(notFoundHandler());
  app.use(errorHandler(options.logger));
  return app;
}
