/**
 * The platform with its dashboard, a browser and the other tests' real parts (an SMTP sink and a
 * DNS server on loopback), for the dashboard's end-to-end tests. Every page a test looks at is
 * checked with axe-core and by keyboard, and photographed.
 */
import { isBuildCurrent } from '@stamp/dashboard';
import {
  accessibilityViolations,
  browserUnavailable,
  keyboardUnreachable,
  launchBrowser,
  screenshot,
} from '@stamp/testkit/browser.ts';
import { startDnsServer, type TestDnsServer } from '@stamp/testkit/dns-server.ts';
import { freePort } from '@stamp/testkit/net.ts';
import { parseMessage, type SmtpSink, startSmtpSink } from '@stamp/testkit/smtp-sink.ts';
import type { Browser, BrowserContext, Page } from 'playwright-core';

import type { Stamp } from '../app.ts';
import { startTestStamp } from '../testing.ts';

const unavailable = browserUnavailable();
if (unavailable !== undefined)
  console.warn(`Skipping the dashboard's browser tests: ${unavailable}`);

/**
 * `describe` where Chromium can run, else `describe.skip` (the reason printed once per file):
 * the block of every browser test. Its tests get 3 minutes each, as a browser on a busy machine
 * is slow; a step waits 30 s at most.
 */
export const describeBrowser = unavailable === undefined ? describe : describe.skip;
jest.setTimeout(180_000);

/** What {@link startDashboardHarness} started. */
export interface DashboardHarness {
  stamp: Stamp;
  /** The platform's origin, also its STAMP_PUBLIC_URL: `http://127.0.0.1:<port>`. */
  url: string;
  dns: TestDnsServer;
  sink: SmtpSink;
  browser: Browser;
  /** A new browser context (its own cookies) and page. */
  newPage(): Promise<{ context: BrowserContext; page: Page }>;
  /**
   * The newest link to `pathname` (for example `/verify-email`) in the mail the SMTP sink received
   * for `to`, waiting up to 10 s for it.
   * @throws Error when none arrived in time.
   */
  emailLink(to: string, pathname: string): Promise<string>;
  /** Stops the browser, the platform and the servers. */
  close(): Promise<void>;
}

/**
 * Starts the harness. `env` comes on top of the platform's test environment.
 * @throws Error when the dashboard's build (unless named by STAMP_DASHBOARD_DIST) is missing or stale (the test command builds it first:
 *   `./pnpmw run dashboard`).
 */
export async function startDashboardHarness(
  env: Record<string, string> = {},
): Promise<DashboardHarness> {
  // A build named by STAMP_DASHBOARD_DIST is served as it is.
  if (process.env.STAMP_DASHBOARD_DIST === undefined && !isBuildCurrent()) {
    throw new Error(
      'The dashboard is not built from the current sources: run ./pnpmw run dashboard first',
    );
  }
  const dns = await startDnsServer({});
  const sink = await startSmtpSink();
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const stamp = await startTestStamp({
    STAMP_PORT: String(port),
    STAMP_HOST: '127.0.0.1',
    STAMP_PUBLIC_URL: url,
    STAMP_SMTP_URL: sink.url,
    STAMP_DNS_SERVERS: dns.address,
    ...env,
  });
  const browser = await launchBrowser();
  return {
    stamp,
    url,
    dns,
    sink,
    browser,
    async newPage() {
      const context = await browser.newContext({
        baseURL: url,
        viewport: { width: 1280, height: 900 },
      });
      context.setDefaultTimeout(30_000);
      return { context, page: await context.newPage() };
    },
    async emailLink(to, pathname) {
      for (let attempt = 0; attempt < 400; attempt += 1) {
        for (const message of [...sink.messages].reverse()) {
          if (!message.envelope.to.includes(to)) continue;
          const parsed = await parseMessage(message.raw);
          const html = typeof parsed.html === 'string' ? parsed.html : '';
          for (const match of html.matchAll(/href="([^"]+)"/g)) {
            const href = (match[1] ?? '').replaceAll('&amp;', '&');
            if (new URL(href).pathname === pathname) return href;
          }
        }
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      throw new Error(`No email to ${to} with a link to ${pathname}`);
    },
    async close() {
      await browser.close();
      await stamp.close();
      await sink.close();
      await dns.close();
    },
  };
}

/**
 * Checks the page as it is now: no serious or critical axe-core violation, every control
 * reachable with Tab; then writes its screenshot `<name>.png`.
 */
export async function checkPage(page: Page, name: string): Promise<void> {
  await page.waitForLoadState('networkidle');
  expect(await accessibilityViolations(page)).toEqual([]);
  expect(await keyboardUnreachable(page)).toEqual([]);
  await screenshot(page, name);
}

/** The password of the users the tests sign up. */
export const TEST_PASSWORD = 'correct horse battery';

/** A project's pages: `/p/<id>` and the id. */
export interface ProjectPages {
  path: string;
  projectId: string;
}

/**
 * Fills and sends the sign-up form of the current page (`/signup`, perhaps opened from an
 * invitation) with {@link TEST_PASSWORD}, and waits for the project's overview.
 */
export async function submitSignUp(page: Page, name: string, email: string): Promise<ProjectPages> {
  await page.getByLabel('Name').fill(name);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel(/^Password/).fill(TEST_PASSWORD);
  await page.getByRole('button', { name: 'Sign up' }).click();
  await page.waitForURL(/\/p\/[^/]+$/);
  const path = new URL(page.url()).pathname;
  return { path, projectId: decodeURIComponent(path.split('/')[2] ?? '') };
}

/** Opens `/signup` and signs up (the first user owns the default project). */
export async function signUp(page: Page, name: string, email: string): Promise<ProjectPages> {
  await page.goto('/signup');
  return submitSignUp(page, name, email);
}
