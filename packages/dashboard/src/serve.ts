/**
 * Serving the dashboard's production build at the API's origin. The dashboard's own addresses
 * never collide with the API's: the sign-in pages (`/`, `/login`, `/signup`, `/forgot-password`,
 * and `/verify-email` and `/reset-password`, which account emails link to) and every page of a
 * project under `/p/<project id>/…` answer the app's `index.html`; the hashed files under
 * `/assets/` are cached for a year.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';

import express from 'express';
import expressStaticGzip from 'express-static-gzip';

/** Pages outside a project (account emails link to `/verify-email` and `/reset-password`). */
export const DASHBOARD_PAGES: ReadonlySet<string> = new Set([
  '/',
  '/login',
  '/signup',
  '/forgot-password',
  '/verify-email',
  '/reset-password',
  '/projects/new',
]);

/** Prefix of a project's pages: `/p/<project id>/<page>`. */
export const PROJECT_PAGES_PREFIX = '/p/';

/**
 * What the dashboard's pages may load: its own scripts and styles (the component library adds
 * style elements), images from anywhere (previews of emails show their images), and no framing of
 * the dashboard elsewhere. A template preview is a sandboxed frame without scripts.
 */
export const DASHBOARD_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; " +
  "img-src 'self' data: blob: https: http:; font-src 'self' data:; connect-src 'self'; " +
  "frame-src 'self' blob: data:; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

/** Whether `path` is a page of the dashboard (answered with `index.html`). */
export function isDashboardPage(path: string): boolean {
  return DASHBOARD_PAGES.has(path) || (path.startsWith(PROJECT_PAGES_PREFIX) && path.length > 3);
}

/** Shown at the dashboard's pages when `dist/` holds no build. */
const NOT_BUILT_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Stamp</title></head>
<body><main><h1>The dashboard is not built</h1>
<p>Build it with <code>./pnpmw run dashboard</code> (the start command does this on its own); the API works without it.</p>
</main></body></html>
`;

/**
 * The router serving the build in `folder` (the package's `dist/`): `GET|HEAD` of a dashboard
 * page → `index.html` (`Cache-Control: no-cache`, {@link DASHBOARD_CSP}); `/assets/<file>` →
 * the file, its Brotli or gzip copy when the browser accepts one (`Cache-Control: public,
 * max-age=31536000, immutable`; its name carries its hash);
 * other requests pass through. Without a build, the pages answer 503 with a page saying how to
 * build it.
 */
export function dashboardRouter(folder: string): express.Router {
  const router = express.Router();
  const index = join(folder, 'index.html');
  const assets: express.RequestHandler = expressStaticGzip(join(folder, 'assets'), {
    enableBrotli: true,
    orderPreference: ['br', 'gz'],
    index: false,
    serveStatic: { index: false, fallthrough: true, immutable: true, maxAge: 31_536_000_000 },
  });
  router.use('/assets', assets);
  router.use('/favicon.svg', (req, res, next) => {
    const file = join(folder, 'favicon.svg');
    if ((req.method !== 'GET' && req.method !== 'HEAD') || req.path !== '/' || !existsSync(file)) {
      next();
      return;
    }
    res.set('Cache-Control', 'public, max-age=86400').sendFile(file);
  });
  // A middleware, not a route: a route would make the router answer OPTIONS of every path.
  router.use((req, res, next) => {
    if ((req.method !== 'GET' && req.method !== 'HEAD') || !isDashboardPage(req.path)) {
      next();
      return;
    }
    res.set('Content-Security-Policy', DASHBOARD_CSP);
    res.set('X-Content-Type-Options', 'nosniff');
    res.set('Referrer-Policy', 'same-origin');
    if (!existsSync(index)) {
      res.status(503).type('html').send(NOT_BUILT_PAGE);
      return;
    }
    res.set('Cache-Control', 'no-cache').sendFile(index);
  });
  return router;
}
