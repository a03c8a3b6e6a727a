/**
 * The dashboard's contacts in Chromium: searching and adding contacts (with the API's field
 * errors), a contact's page (custom fields, subscription, timeline), bulk actions on selected
 * contacts with their job's progress, a CSV import with its live progress and failed rows, the
 * list staying one page at a time, and deleting a contact after confirmation.
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

interface ContactBody {
  id: string;
  email: string;
  subscribed: boolean;
  data: Record<string, unknown>;
}

/** Rows of the imported file, the header apart; three of them cannot be imported. */
const IMPORT_ROWS = 2000;
const BAD_ROWS = new Map<number, { row: string; email: string }>([
  [100, { row: 'not-an-email,Bad,true', email: 'not-an-email' }],
  [700, { row: ',Nobody,true', email: '' }],
  [1500, { row: 'maybe@import.example.org,Maybe,perhaps', email: 'maybe@import.example.org' }],
]);

/** The CSV file: `email,firstName,subscribed`, with the bad rows at their indexes. */
function importFile(): string {
  const lines = ['email,firstName,subscribed'];
  for (let index = 0; index < IMPORT_ROWS; index++) {
    lines.push(
      BAD_ROWS.get(index)?.row ?? `person${index}@import.example.org,Person ${index},true`,
    );
  }
  return `${lines.join('\n')}\n`;
}

describeBrowser('the dashboard: contacts', () => {
  let harness: DashboardHarness;
  let context: BrowserContext;
  let page: Page;
  let projectPath = '';

  const contactByEmail = async (email: string): Promise<ContactBody | undefined> => {
    const found = await call(
      harness.url,
      sk,
      'GET',
      `/contacts?search=${encodeURIComponent(email)}`,
    );
    expect(found.status).toBe(200);
    return (found.body as { data: ContactBody[] }).data.find((item) => item.email === email);
  };

  beforeAll(async () => {
    harness = await startDashboardHarness();
    for (const email of ['ada@example.org', 'grace@example.org', 'linus@example.org']) {
      const created = await call(harness.url, sk, 'POST', '/contacts', {
        email,
        data: { plan: 'free' },
      });
      expect(created.status).toBe(201);
    }
    ({ context, page } = await harness.newPage());
    projectPath = (await signUp(page, 'Ada Lovelace', 'owner@example.org')).path;
  });

  afterAll(async () => {
    await context?.close();
    await harness?.close();
  });

  it('searches the contacts and adds one, with the API field error on the email', async () => {
    await page.goto(`${projectPath}/contacts`);
    await page.getByRole('link', { name: 'grace@example.org' }).waitFor();
    await checkPage(page, 'contacts');

    await page.getByLabel('Search by email').fill('GRACE');
    await page.getByRole('link', { name: 'ada@example.org' }).waitFor({ state: 'detached' });
    // Counted once the filtered rows are shown (the table is empty while they load).
    await page.getByRole('link', { name: 'grace@example.org' }).waitFor();
    expect(await page.getByRole('table', { name: 'Contacts' }).getByRole('link').count()).toBe(1);
    await page.getByLabel('Search by email').fill('nobody-like-this');
    await page.getByRole('heading', { name: 'No contact matches' }).waitFor();
    await page.getByLabel('Search by email').fill('');
    await page.getByRole('link', { name: 'ada@example.org' }).waitFor();

    await page.getByRole('button', { name: 'Add contact' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add a contact' });
    // The browser accepts this address; the API does not, and says so on the field.
    await dialog.getByRole('textbox', { name: 'Email' }).fill('new.person@example');
    await dialog.getByRole('button', { name: 'Add a field' }).click();
    await dialog.getByLabel('Name of field 1').fill('company');
    await dialog.getByLabel('Value of company').fill('Analytical Engines');
    await dialog.getByRole('button', { name: 'Add contact' }).click();
    const emailInput = dialog.getByRole('textbox', { name: 'Email' });
    await dialog
      .locator('.mantine-TextInput-error', { hasText: 'Invalid email address' })
      .waitFor();
    expect(await emailInput.getAttribute('aria-invalid')).toBe('true');
    await checkPage(page, 'contacts-add');

    await emailInput.fill('new.person@example.org');
    await dialog.getByRole('button', { name: 'Add contact' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await page.getByRole('link', { name: 'new.person@example.org' }).waitFor();
    const created = await contactByEmail('new.person@example.org');
    expect(created).toMatchObject({ subscribed: true, data: { company: 'Analytical Engines' } });
  });

  it("edits a contact's fields and subscription and shows its timeline", async () => {
    const tracked = await call(harness.url, sk, 'POST', '/v1/track', {
      event: 'signed-up',
      email: 'ada@example.org',
      data: { source: 'landing page' },
    });
    expect(tracked.status).toBe(200);
    await page.goto(`${projectPath}/contacts`);
    await page.getByRole('link', { name: 'ada@example.org' }).click();
    await page.getByRole('heading', { level: 1, name: 'ada@example.org' }).waitFor();
    const timeline = page.getByRole('region', { name: 'Timeline' });
    await timeline.getByText('signed-up: source: landing page').waitFor();
    // The activity item of the tracked event is not shown a second time.
    expect(await timeline.getByText(/signed-up/).count()).toBe(1);
    await checkPage(page, 'contact');

    await page.getByRole('button', { name: 'Edit fields' }).click();
    await page.getByLabel('Value of plan').fill('pro');
    await page.getByRole('button', { name: 'Save fields' }).click();
    const fields = page.getByRole('table', { name: 'Custom fields' });
    await fields.getByRole('row', { name: 'plan pro' }).waitFor();
    await fields.getByRole('row', { name: 'source landing page' }).waitFor();
    expect((await contactByEmail('ada@example.org'))?.data).toEqual({
      plan: 'pro',
      source: 'landing page',
    });

    await page.getByRole('switch', { name: 'Subscribed to marketing emails' }).click();
    await page.getByText('Only transactional emails go to this contact.').waitFor();
    await timeline.getByText('Unsubscribed').waitFor();
    expect((await contactByEmail('ada@example.org'))?.subscribed).toBe(false);
  });

  it('unsubscribes two selected contacts in bulk and shows the job until it is done', async () => {
    await page.goto(`${projectPath}/contacts`);
    await page.getByRole('checkbox', { name: 'Select grace@example.org' }).check();
    await page.getByRole('checkbox', { name: 'Select linus@example.org' }).check();
    const selection = page.getByRole('region', { name: 'Selected contacts' });
    await selection.getByText('2 contacts selected').waitFor();
    await checkPage(page, 'contacts-selected');
    await selection.getByRole('button', { name: 'Unsubscribe' }).click();
    const progress = page.getByRole('progressbar', { name: 'Unsubscribing 2 contacts' });
    await progress.waitFor();
    await page.locator('[role=progressbar][aria-valuenow="100"]').waitFor();
    await selection.getByText('Completed').waitFor();
    await selection.getByText('2 of 2 contacts processed').waitFor();
    for (const email of ['grace@example.org', 'linus@example.org']) {
      await page
        .getByRole('row', { name: new RegExp(email) })
        .getByText('Unsubscribed', { exact: true })
        .waitFor();
      expect((await contactByEmail(email))?.subscribed).toBe(false);
    }
    expect((await contactByEmail('new.person@example.org'))?.subscribed).toBe(true);
    // The selection is cleared once the job is done.
    expect(await page.getByRole('checkbox', { checked: true }).count()).toBe(0);
  });

  it('imports a CSV file with a live progress bar and lists the rows that failed', async () => {
    await page.goto(`${projectPath}/contacts`);
    await page.getByRole('link', { name: 'Import a CSV file' }).click();
    await page.getByRole('heading', { level: 1, name: 'Import contacts' }).waitFor();
    await checkPage(page, 'contacts-import');

    const chooser = page.waitForEvent('filechooser');
    await page.getByRole('button', { name: 'CSV file' }).click();
    await (
      await chooser
    ).setFiles({ name: 'people.csv', mimeType: 'text/csv', buffer: Buffer.from(importFile()) });
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    await page.waitForURL(/\/contacts\/import\?job=/);
    await page.getByRole('progressbar', { name: 'Import progress' }).waitFor();
    await page
      .locator('[role=progressbar][aria-label="Import progress"][aria-valuenow="100"]')
      .waitFor({ timeout: 30_000 });
    await page.getByText('Completed', { exact: true }).waitFor();
    await page.getByText(`${IMPORT_ROWS.toLocaleString('en')} of`).waitFor();

    const failed = page.getByRole('table', { name: 'Rows not imported' });
    await failed.waitFor();
    expect(await failed.getByRole('row').count()).toBe(1 + BAD_ROWS.size);
    for (const [index, { email }] of BAD_ROWS) {
      // Line 1 is the header: row `index` is on line index + 2.
      const row = failed.getByRole('row').filter({ hasText: new RegExp(`^${index + 2}`) });
      await row.waitFor();
      if (email !== '') await row.getByText(email).waitFor();
    }
    await failed.getByText('Invalid subscribed value "perhaps" (use true or false)').waitFor();
    await page
      .getByText(`Created: ${(IMPORT_ROWS - BAD_ROWS.size).toLocaleString('en')}`)
      .waitFor();
    await checkPage(page, 'contacts-import-done');
    expect(await contactByEmail('person1999@import.example.org')).toMatchObject({
      subscribed: true,
      data: { firstName: 'Person 1999' },
    });

    // However many contacts there are, the list reads 50 at a time and the API counts them.
    const pages: string[] = [];
    page.on('request', (request) => {
      const url = new URL(request.url());
      if (url.pathname === '/contacts') pages.push(url.searchParams.get('limit') ?? '');
    });
    await page.getByRole('link', { name: 'Back to the contacts' }).click();
    const total = 3 + 1 + IMPORT_ROWS - BAD_ROWS.size;
    await page.getByText(`50 of ${total.toLocaleString('en')} shown`).waitFor();
    await page.getByRole('button', { name: 'Load more' }).click();
    await page.getByText(`100 of ${total.toLocaleString('en')} shown`).waitFor();
    expect(pages).toEqual(['50', '50']);
    expect(await page.getByRole('table', { name: 'Contacts' }).getByRole('row').count()).toBe(101);
  });

  it('deletes a contact after confirmation', async () => {
    const linus = await contactByEmail('linus@example.org');
    expect(linus).toBeDefined();
    await page.goto(`${projectPath}/contacts/${linus!.id}`);
    await page.getByRole('button', { name: 'Delete contact' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete this contact?' });
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });
    expect(await contactByEmail('linus@example.org')).toBeDefined();

    await page.getByRole('button', { name: 'Delete contact' }).click();
    await dialog.getByRole('button', { name: 'Delete contact' }).click();
    await page.waitForURL(/\/contacts$/);
    await page.getByText('linus@example.org is deleted').waitFor();
    expect(await contactByEmail('linus@example.org')).toBeUndefined();
    expect((await call(harness.url, sk, 'GET', `/contacts/${linus!.id}`)).status).toBe(404);
  });
});
