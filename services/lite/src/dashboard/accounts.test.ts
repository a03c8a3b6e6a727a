/**
 * The dashboard in Chromium: signing up, the project's overview and onboarding checklist, signing
 * out and in again, and the password-reset request.
 */

import {
  checkPage,
  describeBrowser,
  type DashboardHarness,
  startDashboardHarness,
} from './harness.ts';

describeBrowser('the dashboard: accounts', () => {
  let harness: DashboardHarness;

  beforeAll(async () => {
    harness = await startDashboardHarness();
  });

  afterAll(async () => {
    await harness?.close();
  });

  it('signs up, shows the checklist of the project, signs out and back in', async () => {
    const { context, page } = await harness.newPage();
    await page.goto('/');
    await page.waitForURL(/\/login\?redirect=/);
    await checkPage(page, 'login');
    await page.getByRole('link', { name: 'Sign up' }).click();
    await page.waitForURL('**/signup');
    await checkPage(page, 'signup');

    await page.getByLabel('Name').fill('Ada Lovelace');
    await page.getByLabel('Email').fill('ada@example.org');
    await page.getByLabel(/^Password/).fill('short');
    await page.getByRole('button', { name: 'Sign up' }).click();
    // The browser's own check stops a password under 8 characters before the API is called.
    expect(
      await page.evaluate("document.querySelector('input[type=password]').validity.tooShort"),
    ).toBe(true);
    await page.getByLabel(/^Password/).fill('correct horse battery');
    await page.getByRole('button', { name: 'Sign up' }).click();

    await page.waitForURL(/\/p\/[^/]+$/);
    await page
      .getByRole('list', { name: 'Onboarding checklist' })
      .getByText('Add a sender domain')
      .waitFor();
    await page.getByText('Verify your email address').waitFor();
    await checkPage(page, 'overview');

    await page.getByRole('button', { name: 'ada@example.org' }).click();
    await page.getByRole('menuitem', { name: 'Sign out' }).click();
    await page.waitForURL('**/login');

    await page.getByLabel('Email').fill('ada@example.org');
    await page.getByLabel(/^Password/).fill('wrong password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page
      .getByRole('alert')
      .getByText(/invalid|incorrect|wrong/i)
      .waitFor();
    await page.getByLabel(/^Password/).fill('correct horse battery');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(/\/p\/[^/]+$/);
    await context.close();
  });

  it('asks for a password-reset link and sets a new password from the emailed link', async () => {
    const signup = await fetch(`${harness.url}/auth/signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: harness.url },
      body: JSON.stringify({ email: 'grace@example.org', password: 'first password' }),
    });
    expect(signup.status).toBe(201);
    const { context, page } = await harness.newPage();
    await page.goto('/forgot-password');
    await checkPage(page, 'forgot-password');
    await page.getByLabel('Email').fill('grace@example.org');
    await page.getByRole('button', { name: 'Email me a link' }).click();
    await page
      .getByRole('status')
      .getByText('a link to choose a new password is on its way')
      .waitFor();

    await page.goto(await harness.emailLink('grace@example.org', '/reset-password'));
    await checkPage(page, 'reset-password');
    await page.getByLabel(/^New password/).fill('a brand new password');
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByRole('status').getByText('Your password is changed').waitFor();
    await page.getByRole('link', { name: 'Sign in', exact: true }).click();
    await page.getByLabel('Email').fill('grace@example.org');
    await page.getByLabel(/^Password/).fill('a brand new password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    // A user without a project is asked to create one, and sees its keys once.
    await page.waitForURL('**/projects/new');
    await checkPage(page, 'new-project');
    await page.getByLabel(/^Project name/).fill('Grace project');
    await page.getByRole('button', { name: 'Create project' }).click();
    await page.getByText(/^sk_/).waitFor();
    await page.getByRole('link', { name: 'Open Grace project' }).click();
    await page.waitForURL(/\/p\/[^/]+$/);

    // The verification link from the sign-up email confirms the address.
    await page.goto(await harness.emailLink('grace@example.org', '/verify-email'));
    await page.getByRole('status').getByText('Your email address is verified').waitFor();
    await checkPage(page, 'verify-email');
    await page.getByRole('link', { name: 'Go to the dashboard' }).click();
    await page.waitForURL(/\/p\/[^/]+$/);
    await page.getByRole('heading', { level: 1 }).waitFor();
    expect(await page.getByText('Verify your email address').count()).toBe(0);
    await context.close();
  });
});
