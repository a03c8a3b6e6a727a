/**
 * The dashboard's workflows in Chromium: a three-step workflow (trigger on an event → SEND_EMAIL
 * of a template seeded through the API → WEBHOOK to a real HTTP server on loopback) built and
 * enabled in the editor, checked through the API, then run by an event tracked through the API
 * and followed in the list of runs with its step history.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import type { Locator, Page } from 'playwright-core';

import { addVerifiedDomain, call, getOk, TEST_KEYS } from '../testing.ts';
import {
  checkPage,
  describeBrowser,
  type DashboardHarness,
  signUp,
  startDashboardHarness,
} from './harness.ts';

interface Workflow {
  id: string;
  enabled: boolean;
  steps: { id: string; type: string; name: string; config: Record<string, unknown> }[];
  transitions: { fromStepId: string; toStepId: string; branch: string | null }[];
}

/**
 * Waits until `locator`'s box has stayed put for 200 ms: the canvas fits every step in view
 * 50 ms after one is added, which would move a handle in the middle of a drag.
 */
async function settled(locator: Locator): Promise<void> {
  let before = JSON.stringify(await locator.boundingBox());
  for (let look = 0; look < 50; look += 1) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    const now = JSON.stringify(await locator.boundingBox());
    if (now === before) return;
    before = now;
  }
}

describeBrowser('the dashboard: workflows', () => {
  let harness: DashboardHarness;
  let page: Page;
  let base: string;
  let templateId: string;
  let receiver: Server;
  let hookUrl: string;
  const received: { method: string; body: string }[] = [];

  beforeAll(async () => {
    // The WEBHOOK step calls a server on loopback.
    harness = await startDashboardHarness({ STAMP_ALLOW_PRIVATE_TARGETS: 'true' });
    receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        received.push({ method: req.method ?? '', body });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks/stamp`;

    await addVerifiedDomain(harness.url, harness.dns, 'flows.test');
    const template = await call(harness.url, TEST_KEYS.secretKey, 'POST', '/templates', {
      name: 'Welcome',
      subject: 'Welcome aboard',
      body: '<p>Hello {{ email }}</p>',
      from: 'hello@flows.test',
      type: 'TRANSACTIONAL',
    });
    expect(template.status).toBe(201);
    templateId = (template.body as { id: string }).id;

    const opened = await harness.newPage();
    page = opened.page;
    base = (await signUp(page, 'Wes Workflow', 'wes@example.org')).path;
  });

  afterAll(async () => {
    await harness?.close();
    await new Promise((resolve) => receiver?.close(resolve));
  });

  it('builds and enables a workflow, and shows the run an event starts', async () => {
    await page.goto(`${base}/workflows`);
    await page.getByRole('heading', { name: 'No workflows yet' }).waitFor();
    await checkPage(page, 'workflows-empty');

    await page.getByRole('link', { name: 'New workflow' }).first().click();
    await page.waitForURL('**/workflows/new');
    await page.getByLabel(/^Name/).fill('Welcome series');
    await page.getByRole('combobox', { name: /^Event that starts it/ }).fill('signed-up');
    await page.getByRole('combobox', { name: /^Event that starts it/ }).press('Escape');
    await checkPage(page, 'workflow-new');
    await page.getByRole('button', { name: 'Create workflow' }).click();
    await page.getByRole('heading', { level: 1, name: 'Welcome series' }).waitFor();
    const workflowId = new URL(page.url()).pathname.split('/').pop() ?? '';

    // A SEND_EMAIL step after the trigger, from the form.
    const add = page.getByRole('form', { name: 'Add a step' });
    const panel = page.getByRole('region', { name: 'Selected step' });
    await add.getByLabel('Step type').selectOption('SEND_EMAIL');
    await add.getByLabel(/^Step name/).fill('Welcome email');
    await add.getByLabel(/^Template/).selectOption({ label: 'Welcome (transactional)' });
    await add.getByLabel('Comes after').selectOption({ label: 'Trigger' });
    await add.getByRole('button', { name: 'Add step' }).click();
    await panel.getByRole('heading', { name: 'Welcome email' }).waitFor();

    // A WEBHOOK step, not connected yet.
    await add.getByLabel('Step type').selectOption('WEBHOOK');
    await add.getByLabel(/^Step name/).fill('Tell the CRM');
    await add.getByLabel(/^URL/).fill(hookUrl);
    await add.getByRole('button', { name: 'Add step' }).click();
    await panel.getByRole('heading', { name: 'Tell the CRM' }).waitFor();

    // Connecting the email to the webhook on the canvas: from the email's handle to the webhook's.
    const node = (name: string) => page.locator('.react-flow__node', { hasText: name });
    const target = node('Tell the CRM').locator('.react-flow__handle.target');
    await settled(target);
    await node('Welcome email').locator('.react-flow__handle.source').dragTo(target);
    const edge = page.getByRole('img', { name: 'From Welcome email to Tell the CRM' });
    await edge.waitFor({ state: 'attached' });

    // The same without the mouse: the email's panel disconnects it and connects it again.
    await page.getByRole('button', { name: /^Edit: Send email Welcome email/ }).click();
    await panel.getByRole('heading', { name: 'Welcome email' }).waitFor();
    await panel.getByRole('button', { name: 'Disconnect next step (Tell the CRM)' }).click();
    await edge.waitFor({ state: 'detached' });
    await panel.getByLabel('Next step', { exact: true }).selectOption({ label: 'Tell the CRM' });
    await panel.getByRole('button', { name: 'Connect next step' }).click();
    await panel.getByRole('button', { name: 'Disconnect next step (Tell the CRM)' }).waitFor();
    await edge.waitFor({ state: 'attached' });
    await page
      .getByRole('img', { name: 'From Trigger to Welcome email' })
      .waitFor({ state: 'attached' });

    // The switch follows the API: it turns on once the workflow is enabled.
    await page.getByRole('switch', { name: 'Enabled' }).click();
    await page.getByRole('switch', { name: 'Enabled', checked: true }).waitFor();
    await checkPage(page, 'workflow-editor');

    // The API holds the three steps, the two transitions, and the workflow enabled.
    let workflow = await getOk<Workflow>(
      harness.url,
      TEST_KEYS.secretKey,
      `/workflows/${workflowId}`,
    );
    for (let attempt = 0; attempt < 50 && !workflow.enabled; attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      workflow = await getOk<Workflow>(
        harness.url,
        TEST_KEYS.secretKey,
        `/workflows/${workflowId}`,
      );
    }
    expect(workflow.enabled).toBe(true);
    const byType = (type: string) => workflow.steps.find((step) => step.type === type);
    expect(workflow.steps.map((step) => step.type).sort()).toEqual([
      'SEND_EMAIL',
      'TRIGGER',
      'WEBHOOK',
    ]);
    expect(byType('SEND_EMAIL')).toMatchObject({
      name: 'Welcome email',
      config: { templateId, recipient: { type: 'CONTACT' } },
    });
    expect(byType('WEBHOOK')).toMatchObject({
      name: 'Tell the CRM',
      config: { url: hookUrl, method: 'POST' },
    });
    expect(
      workflow.transitions.map((transition) => [transition.fromStepId, transition.toStepId]),
    ).toEqual(
      expect.arrayContaining([
        [byType('TRIGGER')?.id, byType('SEND_EMAIL')?.id],
        [byType('SEND_EMAIL')?.id, byType('WEBHOOK')?.id],
      ]),
    );
    expect(workflow.transitions).toHaveLength(2);

    // An event tracked through the API starts a run, which goes through the three steps.
    const tracked = await call(harness.url, TEST_KEYS.secretKey, 'POST', '/v1/track', {
      event: 'signed-up',
      email: 'newcomer@example.org',
    });
    expect(tracked.status).toBe(200);
    await page.getByRole('tab', { name: 'Runs' }).click();
    const runs = page.getByRole('table', { name: 'Runs of the workflow' });
    const run = runs.getByRole('row', { name: /newcomer@example\.org\s+Completed/ });
    await run.waitFor({ timeout: 30_000 });
    await run.getByRole('button', { name: 'Show steps' }).click();
    const history = page.getByRole('table', { name: 'Steps of the run' });
    // The steps after the trigger, in order, with their outcomes.
    await history.getByRole('row', { name: /^Welcome email Send email sent/ }).waitFor();
    await history.getByRole('row', { name: /^Tell the CRM Webhook delivered/ }).waitFor();
    expect(await history.getByRole('row').count()).toBe(3);
    await checkPage(page, 'workflow-runs');
    expect(received).toHaveLength(1);
    expect(received[0]?.method).toBe('POST');
    expect(
      harness.sink.messages.some((message) => message.envelope.to.includes('newcomer@example.org')),
    ).toBe(true);

    // Cancelling every active run asks first; none is active any more.
    await page.getByRole('button', { name: 'Cancel all active runs' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Cancel all runs' }).click();
    await page.getByText('0 runs were cancelled.').waitFor();

    // The list shows the workflow enabled.
    await page.goto(`${base}/workflows`);
    await page.getByRole('row', { name: /Welcome series .*signed-up.* 2 Enabled/ }).waitFor();
    await checkPage(page, 'workflows');
  });
});
