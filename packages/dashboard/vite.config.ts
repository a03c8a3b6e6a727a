/**
 * Vite's configuration of the dashboard: the app in `app/`, its production build in `dist/`
 * (hashed files under `dist/assets/`, served by the gateway), or in `STAMP_DASHBOARD_DIST`. `vite --config
 * packages/dashboard/vite.config.ts` serves it for development, passing API calls through to a
 * platform on `STAMP_DEV_API` (http://localhost:3000 by default).
 */
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';
import { compression } from 'vite-plugin-compression2';

const api = process.env.STAMP_DEV_API ?? 'http://localhost:3000';

/** Paths the development server passes to the platform: everything but the app's pages. */
const apiPrefixes = [
  '/auth',
  '/users',
  // `/projects/new` is a page of the dashboard; the API's project routes are `/projects/<id>/…`.
  '^/projects/(?!new$)',
  '/contacts',
  '/templates',
  '/campaigns',
  '/segments',
  '/workflows',
  '/domains',
  '/events',
  '/activity',
  '/analytics',
  '/emails',
  '/outbox',
  '/inbound',
  '/suppressions',
  '/webhook-endpoints',
  '/uploads',
  '/images',
  '/config',
  '/v1',
];

export default defineConfig({
  root: new URL('./app', import.meta.url).pathname,
  // Brotli and gzip copies of the built files (`<file>.br`, `<file>.gz`), served to browsers that
  // accept them.
  plugins: [react(), compression({ algorithms: ['brotliCompress', 'gzip'], threshold: 1024 })],
  build: {
    outDir: process.env.STAMP_DASHBOARD_DIST ?? new URL('./dist', import.meta.url).pathname,
    emptyOutDir: true,
    sourcemap: false,
    reportCompressedSize: false,
    chunkSizeWarningLimit: 1500,
  },
  server: {
    proxy: Object.fromEntries(
      apiPrefixes.map((prefix) => [prefix, { target: api, changeOrigin: false }]),
    ),
  },
});
