/**
 * The dashboard's activity feed and local outbox in Chromium: an email sent through the public
 * API from the sandbox address shows in the feed (filtered by type, linked to its contact) and in
 * the outbox, whose message page renders its HTML in a sandboxed frame; an event tracked from the
 * feed's form shows in the feed.
 */
import type { BrowserContext, Page } from 'playwright-core';

import { call, TEST_KEYS } from '../testing.ts';
import {
  checkPage,
  describeBrowser,
  type DashboardHarness,
  signUp,
  startDashboardHarness,
} from './harness.ts';

const sk = TEST_KEYS.secretKey;

/**
 * Playwright 1.65 can lose a page's `networkidle` state for good when a request of the page starts
 * and ends between two lifecycle events of a child frame (here the sandboxed preview frame):
 * `waitForLoadState('networkidle')` then never returns. One more request of the page once the
 * frame has loaded restores it.
 */
async function settleAfterFrame(page: Page): Promise<void> {
  await page.evaluate("fetch('/config').then((response) => response.text())");
}

describeBrowser('the dashboard: activity and outbox', () => {
  let harness: DashboardHarness;
  let context: BrowserContext;
  let page: Page;
  let projectPath = '';
  let emailId = '';

  beforeAll(async () => {
    harness = await startDashboardHarness();
    ({ context, page } = await harness.newPage());
    projectPath = (await signUp(page, 'Grace Hopper', 'owner@example.org')).path;

    const sent = await call(harness.url, sk, 'POST', '/v1/send', {
      to: 'reader@example.org',
      from: 'hello@sandbox.stamp.localhost',
      subject: 'Welcome aboard',
      body: '<html lang="en"><body><h1>Hello, reader</h1><p>Thanks for joining us.</p></body></html>',
    });
    expect(sent.status).toBe(200);
    emailId = (sent.body as { data: { emails: { email: string }[] } }).data.emails[0]!.email;
    for (let attempt = 0; attempt < 400; attempt++) {
      if ((await call(harness.url, sk, 'GET', `/outbox/${emailId}`)).status === 200) break;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  });

  afterAll(async () => {
    await context?.close();
    await harness?.close();
  });

  it('shows the sent email in the activity feed, filtered by type, and tracks an event', async () => {
    await page.goto(`${projectPath}/activity`);
    const feed = page.getByRole('table', { name: 'Activity' });
    const sentRow = feed.getByRole('row').filter({ hasText: 'Email sent' });
    await sentRow.getByRole('link', { name: 'reader@example.org' }).waitFor();
    await sentRow.getByText('Welcome aboard').waitFor();
    await checkPage(page, 'activity');

    await page.getByRole('combobox', { name: 'Type' }).click();
    await page.getByRole('option', { name: /^Email sent \(1\)$/ }).click();
    await page.getByText('1 of 1 shown').waitFor();
    expect(await feed.getByRole('row').count()).toBe(2);

    await page.getByRole('button', { name: 'Track an event' }).click();
    const dialog = page.getByRole('dialog', { name: 'Track an event' });
    await dialog.getByLabel('Contact email').fill('reader@example.org');
    await dialog.getByLabel('Event name').fill('email.opened');
    await dialog.getByRole('button', { name: 'Track event' }).click();
    // Names of system events are refused, on the field.
    await dialog.locator('.mantine-TextInput-error').waitFor();
    expect(await dialog.getByLabel('Event name').getAttribute('aria-invalid')).toBe('true');
    await checkPage(page, 'activity-track');
    await dialog.getByLabel('Event name').fill('finished-onboarding');
    await dialog.getByRole('button', { name: 'Track event' }).click();
    await dialog.waitFor({ state: 'hidden' });

    await page.getByRole('combobox', { name: 'Type' }).click();
    await page.getByRole('option', { name: 'All activity' }).click();
    await feed
      .getByRole('row')
      .filter({ hasText: 'finished-onboarding' })
      .getByRole('link', { name: 'reader@example.org' })
      .click();
    await page.getByRole('heading', { level: 1, name: 'reader@example.org' }).waitFor();
    const timeline = page.getByRole('region', { name: 'Timeline' });
    await timeline.getByText('Email sent').waitFor();
    await timeline.getByText('finished-onboarding').waitFor();
    expect(await timeline.getByText('Welcome aboard').count()).toBeGreaterThanOrEqual(1);
  });

  it('lists the captured email in the outbox and renders its HTML in a sandboxed frame', async () => {
    await page.goto(`${projectPath}/outbox`);
    const row = page.getByRole('table', { name: 'Captured emails' }).getByRole('row', {
      name: /Welcome aboard/,
    });
    await row.getByText('reader@example.org').waitFor();
    await row.getByText('hello@sandbox.stamp.localhost').waitFor();
    await checkPage(page, 'outbox');

    await row.getByRole('link', { name: 'Welcome aboard' }).click();
    await page.waitForURL(`**/outbox/${emailId}`);
    await page.getByRole('heading', { level: 1, name: 'Welcome aboard' }).waitFor();
    const frame = page.frameLocator('iframe[title="Message preview"]');
    await frame.getByRole('heading', { name: 'Hello, reader' }).waitFor();
    await frame.getByText('Thanks for joining us.').waitFor();
    const iframe = page.locator('iframe[title="Message preview"]');
    // No scripts, no same origin: the attribute is present and empty.
    expect(await iframe.getAttribute('sandbox')).toBe('');
    // The open-tracking pixel is not loaded: previewing is not an open.
    expect(await frame.locator('img[data-blocked-src*="/t/o/"]').count()).toBe(1);
    expect(await frame.locator('img[src]').count()).toBe(0);
    await page.getByText('1 remote file is not loaded').waitFor();
    await page.getByText('0 opens').waitFor();
    await settleAfterFrame(page);
    await checkPage(page, 'outbox-message');

    await page.getByRole('tab', { name: 'Headers' }).click();
    const headers = page.getByRole('table', { name: 'Headers' });
    await headers.getByRole('row', { name: /^Subject Welcome aboard$/ }).waitFor();
    await headers.getByRole('row', { name: /^To reader@example\.org$/ }).waitFor();
    await page.getByRole('tab', { name: 'Source' }).click();
    await page.getByText(/^Subject: Welcome aboard$/m).waitFor();
    const email = await call(harness.url, sk, 'GET', `/emails/${emailId}`);
    expect((email.body as { opens: { human: number; automated: number } }).opens).toEqual({
      human: 0,
      automated: 0,
    });
  });
});
