import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';

import { DASHBOARD_ROOT } from '@stamp/dashboard';
import { launchBrowser } from '@stamp/testkit/browser.ts';
import type { Browser, Page } from 'playwright-core';

import { benchDirectory, figure, startProcess, startStamp } from './harness.ts';
import { rebuildViews, seedContacts } from './seed.ts';

/**
 * The dashboard's budgets (issue: initial JavaScript ≤ 250 KB compressed; the contacts page at
 * 1,000,000 contacts shows its first rows within 1 s of navigation; the build time):
 * - the production build's duration (`vite build`, as `./pnpmw run dashboard` makes it), beside
 *   the same run's build of a one-line React page with the same configuration;
 * - the JavaScript of `index.html` (its entry and the files it preloads) raw, gzip and Brotli,
 *   and the compressed JavaScript Chromium actually transferred to show the contacts page;
 * - in Chromium, the time from navigation to the first row of the contacts page of a project of
 *   `CONTACTS` contacts (1,000,000 by default), cold (empty cache) and warm (p50/p95 over
 *   `SAMPLES` navigations), beside the same browser's navigation to a bare Express page that
 *   fetches a page of contacts and renders it as a table.
 * A data folder named by `STAMP_DATA_DIR` is kept (seeded when empty), as in `bench million`.
 */
const count = Number(process.env.CONTACTS ?? 1_000_000);
const samples = Number(process.env.SAMPLES ?? 20);

const quantile = (values: number[], q: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
};

/** Runs `vite build <args>` in the dashboard's package into `outDir`; returns its duration, s. */
function viteBuild(outDir: string, args: string[]): number {
  const vite = join(DASHBOARD_ROOT, 'node_modules', 'vite', 'bin', 'vite.js');
  const started = performance.now();
  const result = spawnSync(process.execPath, [vite, 'build', ...args, '--logLevel', 'error'], {
    cwd: DASHBOARD_ROOT,
    env: { ...process.env, STAMP_DASHBOARD_DIST: outDir },
    stdio: 'inherit',
  });
  if (result.status !== 0) throw new Error(`vite build failed (${String(result.status)})`);
  return (performance.now() - started) / 1000;
}

// 1. Build time, and the baseline: a one-line React page built with the same configuration.
const built = benchDirectory('stamp-dashboard-build-');
figure(
  'dashboard.build_time',
  viteBuild(built, ['--config', join(DASHBOARD_ROOT, 'vite.config.ts')]),
  's',
);
const hello = mkdtempSync(join(DASHBOARD_ROOT, '.bench-hello-'));
try {
  writeFileSync(
    join(hello, 'index.html'),
    '<!doctype html><html lang="en"><body><div id="root"></div><script type="module" src="./main.tsx"></script></body></html>',
  );
  writeFileSync(
    join(hello, 'main.tsx'),
    "import { createRoot } from 'react-dom/client';\ncreateRoot(document.getElementById('root')!).render(<p>Hello</p>);\n",
  );
  const helloOut = benchDirectory('stamp-dashboard-hello-');
  // No configuration file in that folder: Vite's defaults (JSX compiled by Vite itself).
  const helloTime = viteBuild(helloOut, [hello, '--outDir', helloOut, '--emptyOutDir']);
  figure('baseline.hello_react_build_time', helloTime, 's');
} finally {
  rmSync(hello, { recursive: true, force: true });
}

// 2. The initial JavaScript: the entry of index.html and what it preloads.
const index = readFileSync(join(built, 'index.html'), 'utf8');
const initial = [...index.matchAll(/(?:src|href)="\/assets\/([^"]+\.js)"/g)].map(
  (match) => match[1] ?? '',
);
const sizeOf = (file: string): number => statSync(file).size;
/** Bytes served for `file` with `encoding` (`.gz`, `.br`): its copy, or the file itself when too small to have one. */
const servedSize = (file: string, encoding: '' | '.gz' | '.br'): number =>
  existsSync(file + encoding) ? sizeOf(file + encoding) : sizeOf(file);
const sum = (encoding: '' | '.gz' | '.br'): number =>
  initial.reduce((total, file) => total + servedSize(join(built, 'assets', file), encoding), 0);
figure('dashboard.initial_js_files', initial.length, 'files');
figure('dashboard.initial_js_raw', Math.round(sum('') / 1024), 'KB');
figure('dashboard.initial_js_gzip', Math.round(sum('.gz') / 1024), 'KB');
figure('dashboard.initial_js_brotli', Math.round(sum('.br') / 1024), 'KB');
const allJs = readdirSync(join(built, 'assets')).filter((file) => file.endsWith('.js'));
figure(
  'dashboard.all_js_gzip',
  Math.round(
    allJs.reduce((total, file) => total + servedSize(join(built, 'assets', file), '.gz'), 0) / 1024,
  ),
  'KB',
);

// 3. The contacts page at `count` contacts.
const kept = process.env.STAMP_DATA_DIR;
const dataDir = kept ?? benchDirectory('stamp-dashboard-');
if (!existsSync(join(dataDir, 'stamp.db'))) {
  const seeded = performance.now();
  await seedContacts(dataDir, count);
  figure('dashboard.seed_time', (performance.now() - seeded) / 1000, 's');
  figure('dashboard.view_rebuild_time', rebuildViews(dataDir), 's');
}
const stamp = await startStamp({ STAMP_DATA_DIR: dataDir, STAMP_DASHBOARD_DIST: built });
// The default public URL (http://localhost:<port>) is the origin sessions may post from.
const origin = stamp.url.replace('127.0.0.1', 'localhost');
const signup = await fetch(`${origin}/auth/signup`, {
  method: 'POST',
  headers: { 'content-type': 'application/json', origin },
  body: JSON.stringify({ email: 'bench@example.org', password: 'bench password 1' }),
});
if (signup.status !== 201 && signup.status !== 409) throw new Error(`signup: ${signup.status}`);
const login = await fetch(`${origin}/auth/login`, {
  method: 'POST',
  headers: { 'content-type': 'application/json', origin },
  body: JSON.stringify({ email: 'bench@example.org', password: 'bench password 1' }),
});
const session = /stamp_session=([^;]+)/.exec(login.headers.getSetCookie().join(';'))?.[1] ?? '';
const projects = (await (
  await fetch(`${origin}/users/@me/projects`, { headers: { cookie: `stamp_session=${session}` } })
).json()) as { id: string }[];
const projectId = projects[0]?.id ?? '';
const total = (await (
  await fetch(`${origin}/contacts?limit=1`, {
    headers: { cookie: `stamp_session=${session}`, 'x-project-id': projectId },
  })
).json()) as { total: number };
figure('dashboard.contacts', total.total, 'contacts');

/** Milliseconds from `goto(url)` to the first data row of the page's table. */
async function firstRows(page: Page, url: string): Promise<number> {
  const started = performance.now();
  await page.goto(url, { waitUntil: 'commit' });
  await page.locator('tbody tr').first().waitFor({ timeout: 30_000 });
  return performance.now() - started;
}

const browser: Browser = await launchBrowser();
try {
  const context = await browser.newContext();
  await context.addCookies([{ name: 'stamp_session', value: session, url: origin }]);
  const page = await context.newPage();
  let transferred = 0;
  page.on('requestfinished', (request) => {
    if (!request.url().endsWith('.js')) return;
    void request.sizes().then((sizes) => {
      transferred += sizes.responseBodySize;
    });
  });
  const contactsUrl = `${origin}/p/${projectId}/contacts`;
  figure('dashboard.contacts_first_rows_cold', await firstRows(page, contactsUrl), 'ms');
  await page.waitForLoadState('networkidle');
  figure('dashboard.contacts_page_js_transferred', Math.round(transferred / 1024), 'KB');
  const warm: number[] = [];
  for (let sample = 0; sample < samples; sample += 1) warm.push(await firstRows(page, contactsUrl));
  figure('dashboard.contacts_first_rows_p50', quantile(warm, 0.5), 'ms');
  figure('dashboard.contacts_first_rows_p95', quantile(warm, 0.95), 'ms');
  figure('dashboard.rss', Math.round(stamp.rss() / 2 ** 20), 'MiB');
  await context.close();

  // Baseline, same run and browser: a bare Express page fetching a page of contacts.
  const bare = await startProcess('bench/bare-server.ts', {});
  const bareContext = await browser.newContext();
  const barePage = await bareContext.newPage();
  figure(
    'baseline.bare_table_first_rows_cold',
    await firstRows(barePage, `${bare.url}/table`),
    'ms',
  );
  const bareWarm: number[] = [];
  for (let sample = 0; sample < samples; sample += 1) {
    bareWarm.push(await firstRows(barePage, `${bare.url}/table`));
  }
  figure('baseline.bare_table_first_rows_p50', quantile(bareWarm, 0.5), 'ms');
  figure('baseline.bare_table_first_rows_p95', quantile(bareWarm, 0.95), 'ms');
  figure(
    'dashboard.contacts_first_rows_p95_to_bare',
    quantile(warm, 0.95) / quantile(bareWarm, 0.95),
    'x',
  );
  await bareContext.close();
  await bare.stop();
} finally {
  await browser.close();
  await stamp.stop();
}
