/**
 * The dashboard's segments in Chromium: a dynamic segment built with the filter builder (two
 * filters, a live count of the contacts seeded through the API, its members once saved), and a
 * static segment filled by pasting email addresses.
 */
import type { Page } from 'playwright-core';

import { addVerifiedDomain, call, getOk, TEST_KEYS } from '../testing.ts';
import {
  checkPage,
  describeBrowser,
  type DashboardHarness,
  signUp,
  startDashboardHarness,
} from './harness.ts';

/** The contacts seeded: who is on which plan and who tracked `purchased`. */
const CONTACTS = [
  { email: 'ana@example.org', plan: 'pro', purchased: true },
  { email: 'ben@example.org', plan: 'pro', purchased: false },
  { email: 'cleo@example.org', plan: 'free', purchased: true },
  { email: 'dan@example.org', plan: 'pro', purchased: true },
  { email: 'eve@example.org', plan: 'free', purchased: false },
];

describeBrowser('the dashboard: segments', () => {
  let harness: DashboardHarness;
  let page: Page;
  let base: string;

  beforeAll(async () => {
    harness = await startDashboardHarness();
    for (const contact of CONTACTS) {
      const created = await call(harness.url, TEST_KEYS.secretKey, 'POST', '/contacts', {
        email: contact.email,
        data: { plan: contact.plan, seats: contact.plan === 'pro' ? 5 : 1 },
      });
      expect(created.status).toBeLessThan(300);
      if (contact.purchased) {
        const tracked = await call(harness.url, TEST_KEYS.secretKey, 'POST', '/v1/track', {
          event: 'purchased',
          email: contact.email,
          data: { total: 42 },
        });
        expect(tracked.status).toBe(200);
      }
    }
    const opened = await harness.newPage();
    page = opened.page;
    base = (await signUp(page, 'Sam Segment', 'sam@example.org')).path;
  });

  afterAll(async () => {
    await harness?.close();
  });

  it('builds a dynamic segment with a live count and lists its members', async () => {
    await page.goto(`${base}/segments`);
    await page.getByRole('heading', { name: 'No segments yet' }).waitFor();
    await checkPage(page, 'segments-empty');

    await page.getByRole('link', { name: 'New segment' }).first().click();
    await page.waitForURL('**/segments/new');
    await page.getByLabel(/^Name/).fill('Pro buyers');

    const first = page.getByRole('group', { name: 'Filter 1 of group 1' });
    await first.getByLabel('Field').selectOption('data');
    await first.getByRole('combobox', { name: 'Data field' }).fill('plan');
    await first.getByRole('combobox', { name: 'Data field' }).press('Escape');
    await first.getByLabel('Value', { exact: true }).fill('pro');
    // One filter: the three contacts on the pro plan.
    const status = page.getByRole('status').filter({ hasText: /match/ });
    await status.getByText('3 contacts match', { exact: true }).waitFor();

    await page.getByRole('button', { name: 'Add filter to group 1' }).click();
    const second = page.getByRole('group', { name: 'Filter 2 of group 1' });
    await second.getByLabel('Field').selectOption('event');
    await second.getByRole('combobox', { name: 'Event name' }).fill('purchased');
    await second.getByRole('combobox', { name: 'Event name' }).press('Escape');
    expect(await second.getByLabel('Comparison').inputValue()).toBe('triggered');
    // Both filters: pro and purchased.
    await status.getByText('2 contacts match', { exact: true }).waitFor();
    await checkPage(page, 'segment-new');

    await page.getByRole('button', { name: 'Create segment' }).click();
    await page.waitForURL(/\/segments\/(?!new)[^/]+$/);
    await page.getByRole('heading', { level: 1, name: 'Pro buyers' }).waitFor();
    const members = page.getByRole('table', { name: 'Members of the segment' });
    await members.getByRole('cell', { name: 'ana@example.org', exact: true }).waitFor();
    await members.getByRole('cell', { name: 'dan@example.org', exact: true }).waitFor();
    expect(await members.getByRole('row').count()).toBe(3);
    await checkPage(page, 'segment-dynamic');

    // The API holds the condition as built.
    const segments = await getOk<{ name: string; memberCount: number; condition: unknown }[]>(
      harness.url,
      TEST_KEYS.secretKey,
      '/segments',
    );
    const saved = segments.find((segment) => segment.name === 'Pro buyers');
    expect(saved?.memberCount).toBe(2);
    expect(saved?.condition).toEqual({
      logic: 'AND',
      groups: [
        {
          filters: [
            { field: 'data.plan', operator: 'equals', value: 'pro' },
            { field: 'event.purchased', operator: 'triggered' },
          ],
        },
      ],
    });
    // Counting while editing saved nothing: the one segment is the one saved.
    expect(segments).toHaveLength(1);

    // A segment a scheduled campaign sends to cannot be deleted: the API's reason is shown.
    const segmentId = new URL(page.url()).pathname.split('/').pop() ?? '';
    await addVerifiedDomain(harness.url, harness.dns, 'news.test');
    const campaign = await call(harness.url, TEST_KEYS.secretKey, 'POST', '/campaigns', {
      name: 'Pro news',
      subject: 'News for pros',
      body: '<p>Hello</p>',
      from: 'news@news.test',
      audienceType: 'SEGMENT',
      segmentId,
    });
    expect(campaign.status).toBe(201);
    const campaignId = (campaign.body as { data: { id: string } }).data.id;
    const scheduled = await call(
      harness.url,
      TEST_KEYS.secretKey,
      'POST',
      `/campaigns/${campaignId}/send`,
      { scheduledFor: new Date(Date.now() + 86_400_000).toISOString() },
    );
    expect(scheduled.status).toBeLessThan(300);
    await page.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete segment' }).click();
    await page
      .getByRole('alert')
      .filter({ hasText: 'The segment could not be deleted' })
      .getByText(`The segment is the audience of campaign ${campaignId}, which is SCHEDULED`)
      .waitFor();
  });

  it('fills a static segment from pasted addresses and shows the result of each', async () => {
    await page.goto(`${base}/segments/new`);
    await page.getByLabel(/^Name/).fill('VIP list');
    await page.getByRole('radio', { name: 'Static' }).check();
    await page.getByRole('button', { name: 'Create segment' }).click();
    await page.getByRole('heading', { level: 1, name: 'VIP list' }).waitFor();
    await page.getByRole('heading', { name: 'No members' }).waitFor();

    await page
      .getByLabel('Email addresses')
      .fill('ana@example.org, ben@example.org\nnobody@example.org');
    await page.getByRole('button', { name: 'Add 3 to the segment' }).click();
    const results = page.getByRole('table', { name: 'Result for each address' });
    await results.getByRole('row', { name: 'ana@example.org Added' }).waitFor();
    await results.getByRole('row', { name: 'ben@example.org Added' }).waitFor();
    await results
      .getByRole('row', { name: 'nobody@example.org No contact with this address' })
      .waitFor();
    const members = page.getByRole('table', { name: 'Members of the segment' });
    await members.getByRole('cell', { name: 'ben@example.org', exact: true }).waitFor();
    expect(await members.getByRole('row').count()).toBe(3);
    await checkPage(page, 'segment-static');

    // Removing one member through its row.
    await members.getByRole('button', { name: 'Remove ben@example.org from the segment' }).click();
    await page.getByText('1 contact', { exact: true }).waitFor();

    // The list shows both segments with their counts; deleting one asks first.
    await page.goto(`${base}/segments`);
    const table = page.getByRole('table');
    await table.getByRole('row', { name: /Pro buyers Dynamic 2/ }).waitFor();
    await table.getByRole('row', { name: /VIP list Static 1/ }).waitFor();
    await checkPage(page, 'segments');
    await table.getByRole('link', { name: 'VIP list' }).click();
    await page.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete segment' }).click();
    await page.waitForURL(/\/segments$/);
    await table.getByRole('row', { name: /Pro buyers/ }).waitFor();
    await table.getByRole('row', { name: /VIP list/ }).waitFor({ state: 'detached' });
  });
});
