/**
 * The dashboard's settings and webhooks in Chromium: the OWNER invites a MEMBER by email, who
 * signs up through the invitation and finds every action of a higher role disabled; a webhook
 * endpoint that receives an event on loopback and shows it in its delivery log, with a retry;
 * billing caps, usage and errors, suppressions, and key regeneration as the OWNER. (The analytics
 * page is visited by `domains.test.ts`, after an email from the verified domain.)
 */
import { eventually } from '@stamp/testkit/eventually.ts';
import { startWebhookReceiver, type WebhookReceiver } from '@stamp/testkit/webhook-receiver.ts';
import type { BrowserContext, Page } from 'playwright-core';

import { call, TEST_KEYS } from '../testing.ts';
import {
  checkPage,
  describeBrowser,
  type DashboardHarness,
  signUp,
  submitSignUp,
  startDashboardHarness,
} from './harness.ts';

describeBrowser('the dashboard: settings and webhooks', () => {
  let harness: DashboardHarness;
  let receiver: WebhookReceiver;
  let owner: { context: BrowserContext; page: Page };
  let projectId: string;
  const settings = (tab: string) => `/p/${encodeURIComponent(projectId)}/settings/${tab}`;

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    harness = await startDashboardHarness({ STAMP_ALLOW_PRIVATE_TARGETS: 'true' });
    owner = await harness.newPage();
    ({ projectId } = await signUp(owner.page, 'Olive Owner', 'olive@example.org'));
  });

  afterAll(async () => {
    await harness?.close();
    await receiver?.close();
  });

  it('invites a member by email, who sees what only owners and admins may do disabled', async () => {
    const { page } = owner;
    await page
      .getByRole('navigation', { name: 'Project pages' })
      .getByRole('link', { name: 'Settings' })
      .click();
    await page.waitForURL('**/settings/project');
    await page.mouse.move(640, 890);
    await page.getByRole('button', { name: 'Reset project' }).waitFor();
    expect(await page.getByRole('button', { name: 'Reset project' }).isEnabled()).toBe(true);
    await checkPage(page, 'settings-project');

    await page.getByRole('tab', { name: 'Members' }).click();
    await page.waitForURL('**/settings/members');
    await page.getByRole('table', { name: 'Members' }).getByText('olive@example.org').waitFor();
    await page.getByRole('textbox', { name: 'Email address' }).fill('mia@example.org');
    await page.getByRole('combobox', { name: 'Role', exact: true }).click();
    await page.getByRole('option', { name: /^Member/ }).click();
    await page.getByRole('button', { name: 'Invite' }).click();
    await page
      .getByRole('status')
      .getByText('An invitation is on its way to mia@example.org')
      .waitFor();
    await checkPage(page, 'settings-members');

    // The invitation's link signs Mia up into Olive's project, as a MEMBER.
    const member = await harness.newPage();
    await member.page.goto(await harness.emailLink('mia@example.org', '/signup'));
    await member.page.getByText('You were invited to a project').waitFor();
    await submitSignUp(member.page, 'Mia Member', 'mia@example.org');
    expect(member.page.url()).toContain(`/p/${projectId}`);
    const mp = member.page;

    await mp.goto(settings('keys'));
    const regenerate = mp.getByRole('button', { name: 'Regenerate keys' });
    await regenerate.waitFor();
    expect(await regenerate.isDisabled()).toBe(true);
    await mp.getByText('Only owners and admins can regenerate the keys.').waitFor();
    await checkPage(mp, 'settings-keys-member');

    await mp.getByRole('tab', { name: 'Members' }).click();
    await mp.getByRole('table', { name: 'Members' }).getByText('mia@example.org').waitFor();
    expect(await mp.getByRole('button', { name: 'Invite' }).isDisabled()).toBe(true);
    expect(await mp.getByRole('textbox', { name: 'Email address' }).isDisabled()).toBe(true);
    expect(await mp.getByRole('combobox', { name: 'Role of olive@example.org' }).isDisabled()).toBe(
      true,
    );
    expect(await mp.getByRole('combobox', { name: 'Role of mia@example.org' }).isDisabled()).toBe(
      true,
    );
    expect(await mp.getByRole('button', { name: 'Remove olive@example.org' }).isDisabled()).toBe(
      true,
    );
    expect(await mp.getByRole('button', { name: 'Leave' }).isEnabled()).toBe(true);
    await mp.getByText('Only owners and admins can change roles or remove members.').waitFor();

    await mp.getByRole('tab', { name: 'Project' }).click();
    await mp.getByRole('button', { name: 'Reset project' }).waitFor();
    expect(await mp.getByRole('button', { name: 'Reset project' }).isDisabled()).toBe(true);
    expect(await mp.getByRole('button', { name: 'Delete project' }).isDisabled()).toBe(true);
    expect(await mp.getByRole('button', { name: 'Rename' }).isDisabled()).toBe(true);
    await mp.getByText('Only owners can reset the project.').waitFor();

    await mp.getByRole('tab', { name: 'Billing' }).click();
    await mp.getByRole('button', { name: 'Subscribe' }).waitFor();
    for (const name of ['Save caps', 'Subscribe', 'Open the billing portal']) {
      expect(await mp.getByRole('button', { name }).isDisabled()).toBe(true);
    }
    await mp.getByText('Only owners and admins can change billing.').waitFor();
    await member.context.close();

    // Olive sees Mia as a member.
    await page.reload();
    await page.getByRole('table', { name: 'Members' }).getByText('mia@example.org').waitFor();
    expect(await page.getByRole('combobox', { name: 'Role of mia@example.org' }).inputValue()).toBe(
      'Member',
    );
  });

  it('creates a webhook endpoint, delivers an event to it and shows the delivery', async () => {
    const { page } = owner;
    await page.goto(`/p/${encodeURIComponent(projectId)}/webhooks`);
    await page.getByText('No webhook endpoints yet').waitFor();

    await page.getByRole('button', { name: 'New endpoint' }).click();
    await page.getByLabel(/^URL/).fill(receiver.url);
    await page.getByRole('combobox', { name: /^Events/ }).click();
    await page.getByRole('option', { name: /^contact\.created/ }).click();
    await page.keyboard.press('Escape');
    await page.getByLabel(/^Description/).fill('Contacts to the CRM');
    await page.getByRole('button', { name: 'Create endpoint' }).click();
    await page.getByText(/^whsec_/).waitFor();
    await page.getByRole('button', { name: 'Copy the signing secret' }).waitFor();
    await page.getByRole('link', { name: 'Open the endpoint' }).click();

    await page.getByRole('heading', { level: 1, name: 'Contacts to the CRM' }).waitFor();
    await page.getByText('No deliveries yet').waitFor();
    const created = await call(harness.url, TEST_KEYS.secretKey, 'POST', '/contacts', {
      email: 'grace@example.org',
    });
    expect(created.status).toBe(201);
    await eventually('the receiver got the event', async () =>
      receiver.received.length > 0 ? true : undefined,
    );
    const posted = JSON.parse(receiver.received[0]?.body ?? '{}') as { type?: string };
    expect(posted.type).toBe('contact.created');

    const log = page.getByRole('table', { name: 'Deliveries' });
    const row = log.getByRole('row').filter({ hasText: 'contact.created' });
    await eventually('the delivery is logged as succeeded', async () => {
      await page.getByRole('button', { name: 'Refresh' }).click();
      return (await row.filter({ hasText: 'Succeeded' }).count()) === 1 ? true : undefined;
    });
    await row.getByRole('cell', { name: '200', exact: true }).waitFor();
    await row.getByRole('cell', { name: '1', exact: true }).waitFor();

    // A retry posts the same event again and counts a second attempt.
    await row.getByRole('button', { name: /^Retry/ }).click();
    await eventually('the retry arrived', async () =>
      receiver.received.length === 2 ? true : undefined,
    );
    expect(receiver.received[1]?.headers['webhook-id']).toBe(
      receiver.received[0]?.headers['webhook-id'],
    );
    await eventually('the log shows two attempts', async () => {
      await page.getByRole('button', { name: 'Refresh' }).click();
      return (await row.getByRole('cell', { name: '2', exact: true }).count()) === 1
        ? true
        : undefined;
    });
    await page.mouse.move(640, 890);
    await checkPage(page, 'webhook-endpoint');

    await page.getByRole('button', { name: 'Disable' }).click();
    await page.getByRole('button', { name: 'Enable' }).waitFor();
    expect(await row.getByRole('button', { name: /^Retry/ }).isDisabled()).toBe(true);
    await page.getByRole('link', { name: 'All endpoints' }).click();
    const endpoints = page.getByRole('table', { name: 'Webhook endpoints' });
    await endpoints.getByRole('link', { name: receiver.url }).waitFor();
    await endpoints.getByText('Disabled').waitFor();
    await checkPage(page, 'webhooks');
  });

  it('edits the caps, shows billing errors in words, and suppresses an address', async () => {
    const sent = await call(harness.url, TEST_KEYS.secretKey, 'POST', '/v1/send', {
      to: 'grace@example.org',
      from: 'hello@sandbox.stamp.localhost',
      subject: 'Welcome',
      body: '<p>Hi</p>',
    });
    expect(sent.status).toBe(200);
    const { page } = owner;
    await page.goto(settings('billing'));
    await page.getByText('Usage this month').waitFor();
    await page.getByLabel('Transactional email per month').fill('1000');
    await page.getByRole('button', { name: 'Save caps' }).click();
    await page.getByRole('status').getByText('The caps are saved').waitFor();
    await page
      .getByRole('progressbar', { name: /^Transactional email: \d+% of the cap used/ })
      .waitFor();
    await page.getByText(/^1 of 1,000$/).waitFor();
    const limits = await call(
      harness.url,
      TEST_KEYS.secretKey,
      'GET',
      `/users/@me/projects/${projectId}/billing-limits`,
    );
    expect((limits.body as { limits: Record<string, unknown> }).limits.transactional).toBe(1000);
    await page.getByRole('button', { name: 'Subscribe' }).click();
    await page
      .getByRole('alert')
      .filter({ hasText: 'The checkout could not start' })
      .getByText('Billing is not configured on this installation')
      .waitFor();
    await page.mouse.move(640, 890);
    await checkPage(page, 'settings-billing');

    await page.getByRole('tab', { name: 'Suppressions' }).click();
    await page.getByText('No suppressed addresses').waitFor();
    await page.getByRole('textbox', { name: 'Email address' }).fill('gone@example.org');
    await page.getByRole('button', { name: 'Suppress', exact: true }).click();
    const table = page.getByRole('table', { name: 'Suppressed addresses' });
    await table
      .getByRole('row')
      .filter({ hasText: 'gone@example.org' })
      .getByText('Added by hand')
      .waitFor();
    await checkPage(page, 'settings-suppressions');
    const listed = await call(harness.url, TEST_KEYS.secretKey, 'GET', '/suppressions');
    expect((listed.body as { data: { email: string }[] }).data.map((item) => item.email)).toEqual([
      'gone@example.org',
    ]);
  });

  it('regenerates the keys after confirmation and shows the new ones once', async () => {
    const { page } = owner;
    await page.goto(settings('keys'));
    const hint = (key: string) => `${key.slice(0, 3)}…${key.slice(-4)}`;
    await page.getByText(hint(TEST_KEYS.secretKey), { exact: true }).waitFor();
    await page.mouse.move(640, 890);
    await checkPage(page, 'settings-keys');
    await page.getByRole('button', { name: 'Regenerate keys' }).click();
    const dialog = page.getByRole('dialog', { name: 'Regenerate the API keys?' });
    await dialog.getByRole('button', { name: 'Yes, replace the keys' }).click();
    const fresh = page.getByRole('region', { name: 'Your new keys' });
    const secretKey = (await fresh.getByText(/^sk_/).innerText()).trim();
    const publicKey = (await fresh.getByText(/^pk_/).innerText()).trim();
    expect(secretKey).not.toBe(TEST_KEYS.secretKey);
    expect(publicKey).not.toBe(TEST_KEYS.publicKey);
    expect((await call(harness.url, TEST_KEYS.secretKey, 'GET', '/contacts')).status).toBe(401);
    expect((await call(harness.url, secretKey, 'GET', '/contacts')).status).toBe(200);
    // The hint of the keys now shows the new secret key's end.
    await page.getByText(hint(secretKey), { exact: true }).waitFor();
    await page.getByText(hint(publicKey), { exact: true }).waitFor();
    await owner.context.close();
  });
});
