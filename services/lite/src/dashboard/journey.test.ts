/**
 * A new user's first campaign, every step in the dashboard: sign up, add the sender domain and
 * verify it once its DKIM record is published, write a template, build a segment, send a campaign
 * to it and watch its numbers. The emails reach the real SMTP sink, DKIM-signed.
 */
import { eventually } from '@stamp/testkit/eventually.ts';
import { parseMessage, verifyDkim } from '@stamp/testkit/smtp-sink.ts';

import { call, TEST_KEYS } from '../testing.ts';
import {
  checkPage,
  describeBrowser,
  type DashboardHarness,
  signUp,
  startDashboardHarness,
} from './harness.ts';

/** The contacts of the project (made through the API): three of them on the pro plan. */
const READERS = ['ann', 'bob', 'cy', 'dee', 'eli'].map((name, index) => ({
  email: `${name}@example.org`,
  data: { firstName: name.toUpperCase(), plan: index < 3 ? 'pro' : 'free' },
}));

describeBrowser('the dashboard: from sign-up to a sent campaign', () => {
  let harness: DashboardHarness;

  beforeAll(async () => {
    harness = await startDashboardHarness();
    for (const reader of READERS) {
      const created = await call(harness.url, TEST_KEYS.secretKey, 'POST', '/contacts', reader);
      expect(created.status).toBe(201);
    }
  });

  afterAll(async () => {
    await harness?.close();
  });

  it('signs up, verifies a domain, writes a template, builds a segment, sends and reports', async () => {
    const { context, page } = await harness.newPage();
    const { path, projectId } = await signUp(page, 'Ada Lovelace', 'ada@example.org');
    const nav = page.getByRole('navigation', { name: 'Project pages' });

    // The sender domain: added, its DKIM record published, checked.
    await nav.getByRole('link', { name: 'Domains' }).click();
    await page.getByLabel(/^Domain/).fill('acme.test');
    await page.getByRole('button', { name: 'Add domain' }).click();
    const card = page.getByRole('region', { name: 'acme.test' });
    await card.getByRole('table', { name: 'DNS records of acme.test' }).waitFor();
    const listed = await call(
      harness.url,
      TEST_KEYS.secretKey,
      'GET',
      `/domains/project/${projectId}`,
    );
    const [domain] = listed.body as {
      records: { purpose: string; name: string; value: string }[];
    }[];
    const dkim = domain?.records.find((record) => record.purpose === 'DKIM');
    if (dkim === undefined) throw new Error('the domain has no DKIM record');
    harness.dns.set(dkim.name, { TXT: [dkim.value] });
    await card.getByRole('button', { name: /^Check now/ }).click();
    await card.getByRole('status').getByText('The domain is verified').waitFor();

    // The template, written in the code editor.
    await nav.getByRole('link', { name: 'Templates' }).click();
    await page.getByRole('link', { name: 'New template' }).first().click();
    await page.waitForURL('**/templates/new');
    await page.getByLabel(/^Name/).fill('Pro news');
    await page.getByLabel(/^Subject/).fill('News for {{ data.firstName ?? you }}');
    await page.getByRole('combobox', { name: 'From address' }).fill('news@acme.test');
    await page.getByRole('textbox', { name: 'Body (HTML and Liquid)' }).click();
    await page.keyboard.type('<p>Hello {{ data.firstName }}, pro news inside.');
    await page.getByRole('button', { name: 'Create template' }).click();
    await page.waitForURL(/\/templates\/(?!new)[^/]+$/);
    await page.getByRole('heading', { level: 1, name: 'Pro news' }).waitFor();

    // The segment: contacts on the pro plan, counted while it is built.
    await nav.getByRole('link', { name: 'Segments' }).click();
    await page.getByRole('link', { name: 'New segment' }).first().click();
    await page.waitForURL('**/segments/new');
    await page.getByLabel(/^Name/).fill('Pro plan');
    const filter = page.getByRole('group', { name: 'Filter 1 of group 1' });
    await filter.getByLabel('Field').selectOption('data');
    await filter.getByRole('combobox', { name: 'Data field' }).fill('plan');
    await filter.getByRole('combobox', { name: 'Data field' }).press('Escape');
    await filter.getByLabel('Value', { exact: true }).fill('pro');
    await page
      .getByRole('status')
      .filter({ hasText: /match/ })
      .getByText('3 contacts match', { exact: true })
      .waitFor();
    await page.getByRole('button', { name: 'Create segment' }).click();
    await page.waitForURL(/\/segments\/(?!new)[^/]+$/);

    // The campaign: the template, to the segment, sent now.
    await nav.getByRole('link', { name: 'Campaigns' }).click();
    await page.getByRole('link', { name: 'New campaign' }).first().click();
    await page.waitForURL('**/campaigns/new');
    await page.getByLabel(/^Name/).fill('Pro news, November');
    await page.getByRole('combobox', { name: 'Template' }).click();
    await page.getByRole('option', { name: 'Pro news' }).click();
    await page.getByRole('radio', { name: 'A segment' }).check();
    await page.getByRole('combobox', { name: 'Segment' }).click();
    await page.getByRole('option', { name: /^Pro plan/ }).click();
    await page
      .getByRole('status', { name: 'Recipients' })
      .getByText('3 subscribed contacts will get it')
      .waitFor();
    await page.getByRole('button', { name: 'Save draft' }).click();
    await page.waitForURL(/\/campaigns\/(?!new)[^/]+$/);
    await page.getByRole('button', { name: 'Send now' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Send now' }).click();

    // Its numbers, as they come in; the three emails in the sink, signed for acme.test.
    await page
      .getByRole('group', { name: 'Sent', exact: true })
      .getByText('3', { exact: true })
      .waitFor({ timeout: 60_000 });
    await checkPage(page, 'journey-campaign-stats');
    const mail = await eventually('the three emails', async () => {
      const sent = harness.sink.messages.filter((message) =>
        READERS.slice(0, 3).some((reader) => message.envelope.to.includes(reader.email)),
      );
      return sent.length === 3 ? sent : undefined;
    });
    expect(
      harness.sink.messages.filter((message) =>
        READERS.slice(3).some((reader) => message.envelope.to.includes(reader.email)),
      ),
    ).toEqual([]);
    const parsed = await parseMessage(mail[0]!.raw);
    expect(parsed.subject).toMatch(/^News for (ANN|BOB|CY)$/);
    expect(await verifyDkim(mail[0]!.raw, { [dkim.name]: dkim.value })).toEqual([
      expect.objectContaining({ result: 'pass', signingDomain: 'acme.test' }),
    ]);
    expect(path).toBe(`/p/${projectId}`);
    await context.close();
  });
});
