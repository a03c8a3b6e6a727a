/**
 * The dashboard's campaigns in Chromium, on a verified domain with a template and 20 subscribed
 * contacts seeded through the API: a campaign made from the template to every subscribed
 * contact, its live recipient count, sending it and watching its numbers reach 20 while the real
 * SMTP sink receives the 20 emails; then a copy aimed at a segment, a refused sender, scheduling
 * and cancelling it, and a test send.
 */
import { eventually } from '@stamp/testkit/eventually.ts';
import { parseMessage } from '@stamp/testkit/smtp-sink.ts';
import type { Page } from 'playwright-core';

import { addVerifiedDomain, call, TEST_KEYS } from '../testing.ts';
import {
  checkPage,
  describeBrowser,
  type DashboardHarness,
  signUp,
  startDashboardHarness,
} from './harness.ts';

const sk = TEST_KEYS.secretKey;
/** The seeded subscribed contacts: 20, the first 5 on the "pro" plan. */
const CONTACTS = Array.from({ length: 20 }, (_, index) => ({
  email: `reader${String(index + 1).padStart(2, '0')}@example.org`,
  data: { firstName: `Reader ${index + 1}`, plan: index < 5 ? 'pro' : 'free' },
}));

/** A campaign of the project, read with the secret key. */
async function campaignOf(harness: DashboardHarness, id: string) {
  return (await call(harness.url, sk, 'GET', `/campaigns/${id}`)).body as {
    status: string;
    name: string;
    scheduledAt: string | null;
    audienceType: string;
    segmentId: string | null;
  };
}

describeBrowser('the dashboard: campaigns', () => {
  let harness: DashboardHarness;
  let page: Page;
  let closeContext: () => Promise<void>;
  let segmentId = '';
  let sentId = '';

  beforeAll(async () => {
    harness = await startDashboardHarness();
    await addVerifiedDomain(harness.url, harness.dns, 'acme.test');
    const template = await call(harness.url, sk, 'POST', '/templates', {
      name: 'Spring news',
      type: 'MARKETING',
      from: 'news@acme.test',
      fromName: 'Acme',
      subject: 'Spring news for {{ data.firstName ?? you }}',
      body: '<h1>Hello {{ data.firstName }}</h1><p>Our {{ data.plan }} plan has news.</p>',
    });
    expect(template.status).toBe(201);
    for (const contact of CONTACTS) {
      expect((await call(harness.url, sk, 'POST', '/contacts', contact)).status).toBe(201);
    }
    // An unsubscribed contact never gets a campaign, so it is not counted.
    await call(harness.url, sk, 'POST', '/contacts', {
      email: 'gone@example.org',
      subscribed: false,
    });
    const segment = await call(harness.url, sk, 'POST', '/segments', {
      name: 'Pro plan',
      type: 'DYNAMIC',
      condition: {
        logic: 'AND',
        groups: [{ filters: [{ field: 'data.plan', operator: 'equals', value: 'pro' }] }],
      },
    });
    expect(segment.status).toBe(201);
    segmentId = (segment.body as { id: string }).id;

    const opened = await harness.newPage();
    page = opened.page;
    closeContext = () => opened.context.close();
    await signUp(page, 'Ada Lovelace', 'ada@example.org');
  });

  afterAll(async () => {
    await closeContext?.();
    await harness?.close();
  });

  it('makes a campaign from a template for every subscribed contact, sends it and shows its numbers', async () => {
    const project = new URL(page.url()).pathname;
    await page.goto(`${project}/campaigns`);
    await page.getByRole('heading', { name: 'No campaigns yet' }).waitFor();
    await page.getByRole('link', { name: 'New campaign' }).first().click();
    await page.waitForURL('**/campaigns/new');

    await page.getByLabel(/^Name/).fill('Spring news');
    await page.getByRole('combobox', { name: 'Template' }).click();
    await page.getByRole('option', { name: 'Spring news' }).click();
    // The template's subject, body and sender are copied in; the preview renders them.
    const subject = page.getByLabel(/^Subject/);
    await eventually('the subject of the template', async () =>
      (await subject.inputValue()) === 'Spring news for {{ data.firstName ?? you }}'
        ? true
        : undefined,
    );
    expect(await page.getByRole('combobox', { name: 'From address' }).inputValue()).toBe(
      'news@acme.test',
    );
    const preview = page.frameLocator('iframe[title="Preview of the email"]');
    // Previewed for a contact picked by its address.
    await page.getByRole('combobox', { name: 'Preview as' }).fill('reader03');
    await page.getByRole('option', { name: 'reader03@example.org' }).click();
    await preview.getByRole('heading', { name: 'Hello Reader 3' }).waitFor();
    await preview.getByText('Our pro plan has news.').waitFor();
    // Every subscribed contact, counted live: 20 (the unsubscribed one is left out).
    await page
      .getByRole('status', { name: 'Recipients' })
      .getByText('20 subscribed contacts will get it')
      .waitFor();
    await checkPage(page, 'campaign-new');

    await page.getByRole('button', { name: 'Save draft' }).click();
    await page.waitForURL(/\/campaigns\/(?!new)[^/]+$/);
    sentId = new URL(page.url()).pathname.split('/').pop() ?? '';
    await page.getByRole('heading', { level: 1, name: 'Spring news' }).waitFor();
    expect(await campaignOf(harness, sentId)).toMatchObject({
      status: 'DRAFT',
      audienceType: 'ALL',
    });

    await page.getByRole('button', { name: 'Send now' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Send now' }).click();
    // The numbers page follows the sending until all 20 are sent.
    await page
      .getByRole('group', { name: 'Sent', exact: true })
      .getByText('20', { exact: true })
      .waitFor({ timeout: 30_000 });
    await page.getByText('20 of 20 emails on their way').waitFor({ timeout: 30_000 });
    await page.getByText('Sent. Opens, clicks and bounces keep coming in.').waitFor();
    await eventually('the 20 emails', async () =>
      CONTACTS.every((contact) =>
        harness.sink.messages.some((message) => message.envelope.to.includes(contact.email)),
      )
        ? true
        : undefined,
    );
    // The sink holds the 20 and the address verification of the sign-up, nothing else.
    const accountMail = (message: { envelope: { to: string[] } }) =>
      message.envelope.to.includes('ada@example.org');
    expect(harness.sink.messages.filter((message) => !accountMail(message))).toHaveLength(20);
    const first = harness.sink.messages.find((message) =>
      message.envelope.to.includes('reader01@example.org'),
    );
    if (first === undefined) throw new Error('no email to reader01');
    expect((await parseMessage(first.raw)).subject).toBe('Spring news for Reader 1');
    await page.mouse.move(900, 10);
    await checkPage(page, 'campaign-report');

    await page.getByRole('link', { name: 'Campaigns' }).click();
    await page.waitForURL(/\/campaigns$/);
    await page.mouse.move(900, 10);
    const row = page.getByRole('row').filter({ hasText: 'Spring news' });
    await row.getByText('Sent', { exact: true }).waitFor();
    await row.getByRole('cell', { name: '20', exact: true }).waitFor();
    await checkPage(page, 'campaigns');
  });

  it('duplicates it for a segment, refuses an unverified sender, schedules and cancels it', async () => {
    const project = new URL(page.url()).pathname.replace(/\/campaigns$/, '');
    await page.goto(`${project}/campaigns/${sentId}`);
    await page.getByRole('button', { name: 'Duplicate' }).click();
    await page.getByRole('heading', { level: 1, name: 'Spring news (copy)' }).waitFor();
    const copyId = new URL(page.url()).pathname.split('/').pop() ?? '';
    expect(copyId).not.toBe(sentId);

    // The audience: filters, counted live once complete; then a segment, counted the same way.
    await page.getByRole('radio', { name: 'Contacts matching filters' }).check();
    const recipients = page.getByRole('status', { name: 'Recipients' });
    await recipients
      .getByText('Finish every filter to see how many contacts will get it.')
      .waitFor();
    await page.getByRole('textbox', { name: 'Value' }).fill('reader01@example.org');
    await recipients.getByText('1 subscribed contact will get it').waitFor({ timeout: 20_000 });
    await page.getByRole('radio', { name: 'A segment' }).check();
    await page.getByRole('combobox', { name: 'Segment' }).click();
    await page.getByRole('option', { name: /^Pro plan/ }).click();
    await recipients.getByText('5 subscribed contacts will get it').waitFor({ timeout: 20_000 });

    // A sender outside the verified domains is refused, at the From address.
    const from = page.getByRole('combobox', { name: 'From address' });
    await from.fill('news@elsewhere.test');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText('The domain elsewhere.test is not a verified domain').first().waitFor();
    expect(await from.getAttribute('aria-invalid')).toBe('true');
    await from.fill('news@acme.test');
    await page.keyboard.press('Escape');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText('Unsaved changes').waitFor({ state: 'detached' });
    expect(await campaignOf(harness, copyId)).toMatchObject({
      status: 'DRAFT',
      audienceType: 'SEGMENT',
      segmentId,
    });
    await checkPage(page, 'campaign-draft');

    // Scheduled for tomorrow, then cancelled: nothing more is sent.
    const tomorrow = new Date(Date.now() + 24 * 3600 * 1000);
    const pad = (value: number) => String(value).padStart(2, '0');
    const local = `${tomorrow.getFullYear()}-${pad(tomorrow.getMonth() + 1)}-${pad(tomorrow.getDate())}T${pad(tomorrow.getHours())}:${pad(tomorrow.getMinutes())}`;
    await page.getByLabel(/^Send at/).fill(local);
    await page.getByRole('button', { name: 'Schedule' }).click();
    await page.getByText(/^Goes out on /).waitFor();
    const scheduled = await campaignOf(harness, copyId);
    expect(scheduled.status).toBe('SCHEDULED');
    expect(
      Math.abs(new Date(scheduled.scheduledAt ?? '').getTime() - tomorrow.getTime()),
    ).toBeLessThan(60_000);

    await page.getByRole('button', { name: 'Cancel campaign' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Cancel the campaign' }).click();
    await page.getByText('Cancelled: what was not sent yet did not go out.').waitFor();
    expect((await campaignOf(harness, copyId)).status).toBe('CANCELLED');

    // A test of the cancelled campaign still goes to one address.
    await page.getByLabel(/^Test address/).fill('tester@example.org');
    await page.getByRole('button', { name: 'Send test' }).click();
    await page.getByRole('status').getByText('Test sent to tester@example.org').waitFor();
    await eventually('the test email', async () =>
      harness.sink.messages.some((message) => message.envelope.to.includes('tester@example.org'))
        ? true
        : undefined,
    );
    const test = harness.sink.messages.find((message) =>
      message.envelope.to.includes('tester@example.org'),
    );
    expect((await parseMessage(test?.raw ?? '')).subject).toBe('[Test] Spring news for you');
    expect(
      harness.sink.messages.filter((message) => !message.envelope.to.includes('ada@example.org')),
    ).toHaveLength(21);
  });
});
