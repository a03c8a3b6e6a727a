/**
 * The dashboard's Domains and Analytics pages in Chromium: adding a sender domain, its DNS records
 * with copy buttons, publishing the DKIM record on the test DNS server and "Check now" verifying
 * it, removing a domain; then the analytics of an email sent from the verified domain.
 */
import { eventually } from '@stamp/testkit/eventually.ts';

import { call, TEST_KEYS } from '../testing.ts';
import {
  checkPage,
  describeBrowser,
  type DashboardHarness,
  signUp,
  startDashboardHarness,
} from './harness.ts';

interface DomainRecord {
  type: string;
  name: string;
  value: string;
  purpose: string;
  status: string;
}

describeBrowser('the dashboard: domains and analytics', () => {
  let harness: DashboardHarness;

  beforeAll(async () => {
    harness = await startDashboardHarness();
  });

  afterAll(async () => {
    await harness?.close();
  });

  it('adds a domain, shows its DNS records, verifies it with "Check now", removes another', async () => {
    const { context, page } = await harness.newPage();
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: harness.url });
    const { projectId } = await signUp(page, 'Ada Lovelace', 'ada@example.org');

    await page
      .getByRole('navigation', { name: 'Project pages' })
      .getByRole('link', { name: 'Domains' })
      .click();
    await page.waitForURL('**/domains');
    // The pointer leaves the navigation (the shell's hovered active link is not this page's).
    await page.mouse.move(640, 890);
    await page.getByText('No domains yet').waitFor();
    await checkPage(page, 'domains-empty');

    await page.getByLabel(/^Domain/).fill('acme.test');
    await page.getByRole('button', { name: 'Add domain' }).click();
    const card = page.getByRole('region', { name: 'acme.test' });
    const table = card.getByRole('table', { name: 'DNS records of acme.test' });
    await table.waitFor();
    expect(await page.getByText('No domains yet').count()).toBe(0);

    // The records the API gives are the ones the table shows, each with its copy buttons.
    const listed = await call(
      harness.url,
      TEST_KEYS.secretKey,
      'GET',
      `/domains/project/${projectId}`,
    );
    expect(listed.status).toBe(200);
    const [domain] = listed.body as { id: string; status: string; records: DomainRecord[] }[];
    expect(domain?.status).toBe('PENDING');
    const records = domain?.records ?? [];
    expect(records.map((record) => record.purpose)).toEqual(
      expect.arrayContaining(['DKIM', 'SPF', 'RETURN_PATH', 'DMARC']),
    );
    expect(await table.getByRole('row').count()).toBe(records.length + 1);
    const rowOf = (record: DomainRecord) =>
      table
        .getByRole('row')
        .filter({ has: page.getByText(record.name, { exact: true }) })
        .filter({ has: page.getByText(record.value, { exact: true }) })
        .filter({ has: page.getByRole('cell', { name: record.type, exact: true }) });
    for (const record of records) expect(await rowOf(record).count()).toBe(1);
    const dkim = records.find((record) => record.purpose === 'DKIM')!;
    const dkimRow = rowOf(dkim);
    await dkimRow.getByText('Pending').waitFor();

    // The copy button puts the record's value on the clipboard.
    await dkimRow.getByRole('button', { name: 'Copy the value of the DKIM record' }).click();
    await dkimRow.getByText('Copied').waitFor();
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(dkim.value);

    // Before the record is published, a check finds nothing.
    await card.getByRole('button', { name: /^Check now/ }).click();
    await card.getByRole('status').getByText('The DKIM record is needed').waitFor();

    harness.dns.set(dkim.name, { TXT: [dkim.value] });
    await card.getByRole('button', { name: /^Check now/ }).click();
    await card.getByRole('status').getByText('The domain is verified').waitFor();
    await page.mouse.move(640, 890);
    await dkimRow.getByText('Verified').waitFor();
    await card.getByRole('heading', { name: 'acme.test' }).waitFor();
    expect(await card.locator('.mantine-Badge-root', { hasText: 'Verified' }).count()).toBe(2);
    await checkPage(page, 'domains');

    const after = await call(
      harness.url,
      TEST_KEYS.secretKey,
      'GET',
      `/domains/project/${projectId}`,
    );
    expect((after.body as { status: string }[])[0]?.status).toBe('VERIFIED');

    // A second domain is removed after confirmation.
    await page.getByLabel(/^Domain/).fill('other.test');
    await page.getByRole('button', { name: 'Add domain' }).click();
    const other = page.getByRole('region', { name: 'other.test' });
    await other.waitFor();
    await other.getByRole('button', { name: 'Remove other.test' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Remove domain' }).click();
    await other.waitFor({ state: 'detached' });
    const left = await call(
      harness.url,
      TEST_KEYS.secretKey,
      'GET',
      `/domains/project/${projectId}`,
    );
    expect((left.body as { domain: string }[]).map((item) => item.domain)).toEqual(['acme.test']);

    // Analytics: empty at first, then the email sent from the verified domain.
    await page.goto(`/p/${encodeURIComponent(projectId)}/analytics`);
    await page.getByText('No email in this period').waitFor();
    await page.getByText('No events yet').waitFor();
    const sent = await call(harness.url, TEST_KEYS.secretKey, 'POST', '/v1/send', {
      to: 'grace@example.org',
      from: 'hello@acme.test',
      subject: 'Welcome',
      body: '<p>Hi</p>',
    });
    expect(sent.status).toBe(200);
    const totals = page.getByRole('group', { name: 'Email totals' });
    await eventually('the sent email is counted', async () => {
      await page.reload();
      await totals.waitFor();
      return /Sent\s+1\b/.test(await totals.innerText()) ? true : undefined;
    });
    await page.getByRole('img', { name: /^Chart of email per day: 1 sent/ }).waitFor();
    await page.getByRole('region', { name: 'Activity' }).getByText('Emails sent').waitFor();
    await page.getByText('No campaign has been sent yet').waitFor();
    await page.getByText('24 hours', { exact: true }).click();
    await page.getByRole('img', { name: /^Chart of email per hour: 1 sent/ }).waitFor();
    await checkPage(page, 'analytics');
    await context.close();
  });
});
