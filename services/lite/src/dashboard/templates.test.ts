/**
 * The dashboard's templates in Chromium: the empty list, writing a template in the code editor
 * with its live Liquid preview, a test send through the real SMTP sink, duplicating, searching
 * and filtering the list, the usage of a template by a workflow, and deleting.
 */
import { parseMessage } from '@stamp/testkit/smtp-sink.ts';

import { addVerifiedDomain, call, TEST_KEYS } from '../testing.ts';
import {
  checkPage,
  describeBrowser,
  type DashboardHarness,
  signUp,
  startDashboardHarness,
} from './harness.ts';

const sk = TEST_KEYS.secretKey;

describeBrowser('the dashboard: templates', () => {
  let harness: DashboardHarness;

  beforeAll(async () => {
    harness = await startDashboardHarness();
    await addVerifiedDomain(harness.url, harness.dns, 'acme.test');
    const contact = await call(harness.url, sk, 'POST', '/contacts', {
      email: 'grace@example.org',
      data: { firstName: 'Grace', plan: 'pro' },
    });
    expect(contact.status).toBe(201);
  });

  afterAll(async () => {
    await harness?.close();
  });

  let project = '';
  let templateId = '';

  it('writes a template with a live preview and sends a test of it', async () => {
    const { context, page } = await harness.newPage();
    project = (await signUp(page, 'Ada Lovelace', 'ada@example.org')).path;

    await page.goto(`${project}/templates`);
    await page.getByRole('heading', { name: 'No templates yet' }).waitFor();
    await page.getByRole('link', { name: 'New template' }).first().click();
    await page.waitForURL('**/templates/new');

    await page.getByLabel(/^Name/).fill('Welcome');
    await page.getByLabel(/^Subject/).fill('Welcome, {{ data.firstName ?? friend }}');
    await page.getByRole('combobox', { name: 'From address' }).fill('hello@acme.test');
    // The body, typed with the keyboard into the code editor (it closes tags and braces itself).
    await page.getByRole('textbox', { name: 'Body (HTML and Liquid)' }).click();
    await page.keyboard.type('<h1>Hi {{ firstName }} on {{ data.plan | upcase }}');
    await page.keyboard.press('End');
    await page.keyboard.press('Enter');
    await page.keyboard.type('<p>To {{ email }}');
    await page.keyboard.press('End');

    // The preview renders the Liquid for the project's contact, in its sandboxed frame.
    const preview = page.frameLocator('iframe[title="Preview of the email"]');
    await preview.getByRole('heading', { name: 'Hi Grace on PRO' }).waitFor();
    await preview.getByText('To grace@example.org').waitFor();
    await page.getByTestId('preview-subject').getByText('Welcome, Grace').waitFor();
    // A Liquid mistake is explained, with its line; removing it clears the message.
    await page.keyboard.press('Enter');
    await page.keyboard.type('{{ x | nosuchfilter');
    await page.getByText(/Liquid syntax error on line 3: .*nosuchfilter/).waitFor();
    await page.keyboard.press('End');
    await page.keyboard.press('Shift+Home');
    await page.keyboard.press('Backspace');
    await page.keyboard.press('Backspace');
    await page.getByText(/Liquid syntax error/).waitFor({ state: 'detached' });
    await checkPage(page, 'template-new');

    await page.getByRole('button', { name: 'Create template' }).click();
    await page.waitForURL(/\/templates\/(?!new)[^/]+$/);
    await page.getByRole('heading', { level: 1, name: 'Welcome' }).waitFor();
    templateId = new URL(page.url()).pathname.split('/').pop() ?? '';
    const saved = await call(harness.url, sk, 'GET', `/templates/${templateId}`);
    expect(saved.body).toMatchObject({
      name: 'Welcome',
      type: 'MARKETING',
      from: 'hello@acme.test',
      subject: 'Welcome, {{ data.firstName ?? friend }}',
    });
    expect((saved.body as { body: string }).body).toBe(
      '<h1>Hi {{ firstName }} on {{ data.plan | upcase }}</h1>\n<p>To {{ email }}</p>',
    );
    await page.getByText('No campaign or workflow uses this template yet.').waitFor();
    await checkPage(page, 'template-editor');

    // A test send goes through the real SMTP sink, rendered for the test address.
    await page.getByLabel(/^Send to/).fill('tester@example.org');
    await page.getByRole('button', { name: 'Send test' }).click();
    await page.getByRole('status').getByText('Test sent to tester@example.org').waitFor();
    for (let attempt = 0; attempt < 200; attempt++) {
      if (harness.sink.messages.some((m) => m.envelope.to.includes('tester@example.org'))) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const test = harness.sink.messages.find((m) => m.envelope.to.includes('tester@example.org'));
    if (test === undefined) throw new Error('the test email did not arrive');
    const parsed = await parseMessage(test.raw);
    expect(parsed.subject).toBe('[Test] Welcome, friend');
    expect(parsed.html).toContain('To tester@example.org');
    // The draft campaign that carried it is gone.
    expect((await call(harness.url, sk, 'GET', '/campaigns')).body).toEqual([]);
    await context.close();
  });

  it('edits, duplicates, lists, filters, shows the usage of and deletes templates', async () => {
    const { context, page } = await harness.newPage();
    await page.goto('/login');
    await page.getByLabel('Email').fill('ada@example.org');
    await page.getByLabel(/^Password/).fill('correct horse battery');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(/\/p\/[^/]+$/);
    await page.goto(`${project}/templates/${templateId}`);

    // Editing and saving changes the template.
    await page.getByLabel(/^Transactional/).check();
    await page.getByText('Unsaved changes').waitFor();
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Unsaved changes').waitFor({ state: 'detached' });
    expect((await call(harness.url, sk, 'GET', `/templates/${templateId}`)).body).toMatchObject({
      type: 'TRANSACTIONAL',
    });

    // A workflow step that sends the template shows in its usage.
    const workflow = await call(harness.url, sk, 'POST', '/workflows', {
      name: 'Onboarding',
      eventName: 'signed_up',
    });
    const workflowId = (workflow.body as { id: string }).id;
    const step = await call(harness.url, sk, 'POST', `/workflows/${workflowId}/steps`, {
      type: 'SEND_EMAIL',
      name: 'Send the welcome',
      config: { templateId },
    });
    expect(step.status).toBe(201);

    // Duplicating opens the copy.
    await page.getByRole('button', { name: 'Duplicate' }).click();
    await page.getByRole('heading', { level: 1, name: 'Welcome (copy)' }).waitFor();
    expect(new URL(page.url()).pathname).not.toContain(templateId);
    await page.getByLabel(/^Marketing/).check();
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Unsaved changes').waitFor({ state: 'detached' });

    await page.getByRole('link', { name: 'Templates' }).click();
    await page.waitForURL(/\/templates$/);
    // The pointer leaves the navigation (a hovered link is drawn in other colours).
    await page.mouse.move(900, 10);
    const rows = page.getByRole('table').getByRole('row');
    await rows.filter({ hasText: 'Welcome (copy)' }).waitFor();
    expect(await rows.count()).toBe(3);
    await checkPage(page, 'templates');

    await page.getByLabel('Search').fill('copy');
    await page.getByRole('link', { name: 'Welcome', exact: true }).waitFor({ state: 'detached' });
    await page.getByRole('link', { name: 'Welcome (copy)' }).waitFor();
    expect(await page.locator('tbody tr').count()).toBe(1);
    await page.getByLabel('Search').fill('');
    await page.getByRole('link', { name: 'Welcome', exact: true }).waitFor();
    await page.getByRole('combobox', { name: 'Type' }).click();
    await page.getByRole('option', { name: 'Marketing' }).click();
    // Counted once the filtered rows are shown: the transactional one gone, the copy there.
    await page.getByRole('link', { name: 'Welcome', exact: true }).waitFor({ state: 'detached' });
    await page.getByRole('table').getByText('Welcome (copy)').waitFor();
    expect(await page.locator('tbody tr').count()).toBe(1);
    await page.getByRole('combobox', { name: 'Type' }).click();
    await page.getByRole('option', { name: 'Transactional' }).click();
    await page.getByRole('link', { name: 'Welcome', exact: true }).waitFor();
    expect(await page.locator('tbody tr').count()).toBe(1);

    await page.getByRole('button', { name: 'Usage of Welcome' }).click();
    const usage = page.getByRole('dialog', { name: 'Where “Welcome” is used' });
    await usage.getByRole('link', { name: 'Onboarding' }).waitFor();
    await usage.getByText('(1 step)').waitFor();
    await page.keyboard.press('Escape');

    // Deleting the copy, after confirming.
    await page.goto(`${project}/templates`);
    await page.getByRole('button', { name: 'Delete Welcome (copy)' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete template' }).click();
    await page.getByRole('link', { name: 'Welcome (copy)' }).waitFor({ state: 'detached' });
    const left = await call(harness.url, sk, 'GET', '/templates');
    expect((left.body as { data: { name: string }[] }).data.map((t) => t.name)).toEqual([
      'Welcome',
    ]);
    await context.close();
  });
});
