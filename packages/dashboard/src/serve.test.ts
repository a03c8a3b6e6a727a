/**
 * Serving the dashboard's build over a real socket: its pages answer `index.html` with the
 * dashboard's security policy, its hashed files are cached for a year (Brotli copies to browsers
 * that accept them), other paths (the API's)
 * pass through, and a missing build answers 503 with how to make it.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { brotliCompressSync } from 'node:zlib';

import { temporaryDirectory } from '@stamp/testkit/temporary.ts';
import express from 'express';

import { DASHBOARD_CSP, dashboardRouter, isDashboardPage } from './serve.ts';

/** Serves the router of `folder`, then a JSON 404 for everything else (as the API would). */
async function serve(folder: string): Promise<{ url: string; server: Server }> {
  const app = express();
  app.use(dashboardRouter(folder));
  app.use((_req, res) => {
    res.status(404).json({ api: true });
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

describe('the dashboard router', () => {
  const built = temporaryDirectory('stamp-dashboard-');
  mkdirSync(join(built, 'assets'));
  writeFileSync(join(built, 'index.html'), '<!doctype html><title>Stamp</title>');
  writeFileSync(join(built, 'assets', 'index-abc123.js'), 'console.log(1)');
  writeFileSync(join(built, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  writeFileSync(join(built, 'assets', 'index-abc123.js.br'), brotliCompressSync('console.log(1)'));
  let served: { url: string; server: Server };

  beforeAll(async () => {
    served = await serve(built);
  });

  afterAll(() => {
    served.server.close();
  });

  it.each(['/', '/login', '/verify-email', '/p/0193abc', '/p/0193abc/contacts/42'])(
    'answers index.html at %s, never cached, with its security policy',
    async (path) => {
      const response = await fetch(served.url + path);
      expect(response.status).toBe(200);
      expect(await response.text()).toContain('<title>Stamp</title>');
      expect(response.headers.get('cache-control')).toBe('no-cache');
      expect(response.headers.get('content-security-policy')).toBe(DASHBOARD_CSP);
    },
  );

  it('serves hashed files for a year and leaves the API its paths', async () => {
    const asset = await fetch(`${served.url}/assets/index-abc123.js`, {
      headers: { 'accept-encoding': 'br, gzip' },
    });
    expect(asset.status).toBe(200);
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    // The Brotli copy, to a browser that accepts it (fetch decompresses it).
    expect(asset.headers.get('content-encoding')).toBe('br');
    expect(await asset.text()).toBe('console.log(1)');
    const plain = await fetch(`${served.url}/assets/index-abc123.js`, {
      headers: { 'accept-encoding': 'identity' },
    });
    expect(plain.headers.get('content-encoding')).toBeNull();
    expect(await plain.text()).toBe('console.log(1)');
    for (const path of ['/contacts', '/assets/missing.js', '/p/', '/v1/send']) {
      const response = await fetch(served.url + path);
      expect({ path, status: response.status, body: await response.json() }).toEqual({
        path,
        status: 404,
        body: { api: true },
      });
    }
    const icon = await fetch(`${served.url}/favicon.svg`);
    expect(icon.status).toBe(200);
    expect(icon.headers.get('content-type')).toContain('image/svg+xml');
    // Other methods pass through, OPTIONS (CORS preflights of the API) included.
    for (const method of ['POST', 'OPTIONS']) {
      const other = await fetch(`${served.url}/login`, { method });
      expect({ method, status: other.status }).toEqual({ method, status: 404 });
    }
  });

  it('answers 503 with how to build it when there is no build', async () => {
    const empty = await serve(temporaryDirectory('stamp-dashboard-'));
    try {
      const response = await fetch(`${empty.url}/login`);
      expect(response.status).toBe(503);
      expect(await response.text()).toContain('./pnpmw run dashboard');
    } finally {
      empty.server.close();
    }
  });

  it('knows its pages', () => {
    expect(isDashboardPage('/reset-password')).toBe(true);
    expect(isDashboardPage('/p/x')).toBe(true);
    expect(isDashboardPage('/projects/new')).toBe(true);
    expect(isDashboardPage('/projects/abc/members')).toBe(false);
    expect(isDashboardPage('/auth/login')).toBe(false);
  });
});
