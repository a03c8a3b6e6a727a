/**
 * Workflows over real sockets on the embedded platform (spec part 4 "Workflows"): graph editing
 * and its rules, enabling, every definition endpoint, an execution started by POST /v1/track that
 * waits for an event, branches on a condition and sends a template to a real SMTP sink, and one
 * that passes a DELAY on the durable timers, calls a real HTTP server on loopback and updates its
 * contact; a loopback target is refused where private targets are not allowed.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { startDnsServer, type TestDnsServer } from '@stamp/testkit/dns-server.ts';
import { eventually } from '@stamp/testkit/eventually.ts';
import { startSmtpSink } from '@stamp/testkit/smtp-sink.ts';

import type { Stamp } from './app.ts';
import { call, startTestStamp, TEST_KEYS } from './testing.ts';

interface Step {
  id: string;
  type: string;
}
interface Workflow {
  id: string;
  enabled: boolean;
  triggerType: string;
  steps: Step[];
  transitions: { id: string; fromStepId: string; toStepId: string }[];
}
interface Execution {
  id: string;
  status: string;
  currentStepId: string | null;
  nextRunAt: string | null;
  error: string | null;
  history: { stepId: string; outcome: string; output: Record<string, unknown> | null }[];
  context: Record<string, unknown>;
}

const sk = TEST_KEYS.secretKey;
let dns: TestDnsServer;
let sink: Awaited<ReturnType<typeof startSmtpSink>>;
let stamp: Stamp;
let templateId: string;

const api = (method: string, path: string, body?: unknown) =>
  call(stamp.url, sk, method, path, body);

async function created<T>(path: string, body: unknown): Promise<T> {
  const response = await api('POST', path, body);
  expect(response.status).toBe(201);
  return response.body as T;
}

beforeAll(async () => {
  dns = await startDnsServer({});
  sink = await startSmtpSink();
  stamp = await startTestStamp({
    STAMP_SMTP_URL: sink.url,
    STAMP_DNS_SERVERS: dns.address,
    // The webhook receiver of these tests listens on loopback.
    STAMP_ALLOW_PRIVATE_TARGETS: 'true',
  });
  const domain = (await api('POST', '/domains', { domain: 'flows.test' })).body as {
    id: string;
    records: { purpose: string; name: string; value: string }[];
  };
  const dkim = domain.records.find((record) => record.purpose === 'DKIM')!;
  dns.set(dkim.name, { TXT: [dkim.value] });
  await api('GET', `/domains/${domain.id}/verify`);
  const template = await created<{ id: string }>('/templates', {
    name: 'Upgrade',
    subject: 'Hi {{ firstName }}, about {{ event.plan }}',
    body: '<p>Your {{ event.plan }} plan</p>',
    from: 'hello@flows.test',
    type: 'TRANSACTIONAL',
  });
  templateId = template.id;
}, 60_000);

afterAll(async () => {
  await stamp.close();
  await sink.close();
  await dns.close();
});

describe('graph editing', () => {
  it('creates with the trigger step, refuses bad configs, branches and cycles, and enabling an incomplete graph', async () => {
    const workflow = await created<Workflow>('/workflows', { name: 'Rules', eventName: 'rules' });
    expect(workflow).toMatchObject({ enabled: false, triggerType: 'EVENT' });
    expect(workflow.steps.map((step) => step.type)).toEqual(['TRIGGER']);
    const trigger = workflow.steps[0]!;
    const base = `/workflows/${workflow.id}`;

    const badDelay = await api('POST', `${base}/steps`, {
      type: 'DELAY',
      config: { amount: 0, unit: 'days' },
    });
    expect(badDelay.status).toBe(422);
    expect(JSON.stringify(badDelay.body)).toContain('config.amount');
    const badTemplate = await api('POST', `${base}/steps`, {
      type: 'SEND_EMAIL',
      config: { templateId: 'missing' },
    });
    expect(badTemplate.status).toBe(422);
    expect(JSON.stringify(badTemplate.body)).toContain('config.templateId');
    const badUrl = await api('POST', `${base}/steps`, {
      type: 'WEBHOOK',
      config: { url: 'ftp://x' },
    });
    expect(badUrl.status).toBe(422);

    const condition = await created<Step>(`${base}/steps`, {
      type: 'CONDITION',
      config: { field: 'data.plan', operator: 'equals', value: 'pro' },
    });
    const exit = await created<Step>(`${base}/steps`, { type: 'EXIT', config: {} });
    const update = await created<Step>(`${base}/steps`, {
      type: 'UPDATE_CONTACT',
      config: { updates: { seen: true } },
    });
    await created(`${base}/transitions`, { fromStepId: trigger.id, toStepId: condition.id });
    await created(`${base}/transitions`, {
      fromStepId: condition.id,
      toStepId: exit.id,
      branch: 'yes',
    });
    const twice = await api('POST', `${base}/transitions`, {
      fromStepId: condition.id,
      toStepId: update.id,
      branch: 'yes',
    });
    expect(twice.status).toBe(422);
    expect(JSON.stringify(twice.body)).toContain('branch');

    // Incomplete: the CONDITION has no 'no' branch, UPDATE_CONTACT is unreachable.
    const enable = await api('PATCH', base, { enabled: true });
    expect(enable.status).toBe(422);
    expect(JSON.stringify(enable.body)).toContain("no 'no' branch");

    await created(`${base}/transitions`, {
      fromStepId: condition.id,
      toStepId: update.id,
      branch: 'no',
    });
    // update → condition would loop without waiting.
    const cycle = await api('POST', `${base}/transitions`, {
      fromStepId: update.id,
      toStepId: condition.id,
    });
    expect(cycle.status).toBe(422);
    expect(JSON.stringify(cycle.body)).toContain('waitless_cycle');

    const enabled = await api('PATCH', base, { enabled: true });
    expect(enabled.status).toBe(200);
    expect((enabled.body as Workflow).enabled).toBe(true);

    const foreign = await created<Workflow>('/workflows', { name: 'Other', eventName: 'other' });
    const across = await api('POST', `${base}/transitions`, {
      fromStepId: update.id,
      toStepId: foreign.steps[0]!.id,
    });
    expect(across.status).toBe(422);

    // splice=true reconnects the trigger to the condition's successor... not for a branching step.
    const ambiguous = await api('DELETE', `${base}/steps/${condition.id}?splice=true`);
    expect(ambiguous.status).toBe(422);
    expect((await api('GET', '/workflows')).body).toEqual(
      expect.arrayContaining([expect.objectContaining({ id: workflow.id })]),
    );
  });
});

describe('executions', () => {
  it('runs track → wait for event → condition → send, once per trigger, and refuses edits while active', async () => {
    const workflow = await created<Workflow>('/workflows', {
      name: 'Upgrade',
      eventName: 'trial-started',
    });
    const base = `/workflows/${workflow.id}`;
    const trigger = workflow.steps[0]!;
    const wait = await created<Step>(`${base}/steps`, {
      type: 'WAIT_FOR_EVENT',
      config: { eventName: 'plan-chosen', timeout: 3600 },
    });
    const condition = await created<Step>(`${base}/steps`, {
      type: 'CONDITION',
      config: { field: 'event.plan', operator: 'equals', value: 'pro' },
    });
    const send = await created<Step>(`${base}/steps`, {
      type: 'SEND_EMAIL',
      config: { templateId },
    });
    const exit = await created<Step>(`${base}/steps`, {
      type: 'EXIT',
      config: { reason: 'not pro' },
    });
    await created(`${base}/transitions`, { fromStepId: trigger.id, toStepId: wait.id });
    await created(`${base}/transitions`, {
      fromStepId: wait.id,
      toStepId: condition.id,
      waitOutcome: 'EVENT',
    });
    await created(`${base}/transitions`, {
      fromStepId: condition.id,
      toStepId: send.id,
      branch: 'yes',
    });
    await created(`${base}/transitions`, {
      fromStepId: condition.id,
      toStepId: exit.id,
      branch: 'no',
    });
    expect((await api('PATCH', base, { enabled: true })).status).toBe(200);

    for (const email of ['pro@example.org', 'free@example.org']) {
      const tracked = await api('POST', '/v1/track', {
        event: 'trial-started',
        email,
        data: { firstName: email.split('@')[0] },
      });
      expect(tracked.status).toBe(200);
    }
    const waiting = await eventually('two waiting executions', async () => {
      const page = (await api('GET', `${base}/executions?status=WAITING`)).body as {
        data: Execution[];
      };
      return page.data.length === 2 ? page.data : undefined;
    });
    expect(waiting.every((execution) => execution.currentStepId === wait.id)).toBe(true);
    const upcoming = (await api('GET', '/activity/upcoming')).body as {
      executions: { id: string; workflowId: string; status: string }[];
    };
    expect(upcoming.executions.map((execution) => execution.id).sort()).toEqual(
      waiting.map((execution) => execution.id).sort(),
    );
    expect(upcoming.executions.every((execution) => execution.status === 'WAITING')).toBe(true);

    // Structural edits are refused while executions are active; metadata is not.
    const refused = await api('POST', `${base}/steps`, { type: 'EXIT', config: {} });
    expect(refused.status).toBe(409);
    expect(JSON.stringify(refused.body)).toContain('2 active executions');
    expect((await api('PATCH', base, { name: 'Upgrade flow' })).status).toBe(200);
    expect((await api('DELETE', base)).status).toBe(409);

    await api('POST', '/v1/track', {
      event: 'plan-chosen',
      email: 'pro@example.org',
      data: { plan: 'pro' },
    });
    await api('POST', '/v1/track', {
      event: 'plan-chosen',
      email: 'free@example.org',
      data: { plan: 'free' },
    });
    const ended = await eventually('both executions ended', async () => {
      const page = (await api('GET', `${base}/executions`)).body as { data: Execution[] };
      return page.data.every((execution) => ['COMPLETED', 'EXITED'].includes(execution.status))
        ? page.data
        : undefined;
    });
    expect(ended.map((execution) => execution.status).sort()).toEqual(['COMPLETED', 'EXITED']);
    const completed = ended.find((execution) => execution.status === 'COMPLETED')!;
    expect(completed.history.map((entry) => entry.outcome)).toEqual(['EVENT', 'yes', 'sent']);
    type FeedItem = { contact: { email: string } | null; data: { status?: string } };
    const feedOf = async (type: string): Promise<FeedItem[]> =>
      ((await api('GET', `/activity?type=${type}`)).body as { data: FeedItem[] }).data;
    const ends = await eventually('the ends in the activity feed', async () => {
      const items = await feedOf('workflow.completed');
      return items.length === 2 ? items : undefined;
    });
    expect(ends.map((item) => `${item.contact?.email} ${item.data.status}`).sort()).toEqual([
      'free@example.org EXITED',
      'pro@example.org COMPLETED',
    ]);
    expect(await feedOf('workflow.started')).toHaveLength(2);

    const raw = await eventually('the email at the sink', async () =>
      sink.messages
        .map((candidate) => candidate.raw.toString('utf8'))
        .find((text) => text.includes('Subject: Hi pro, about pro')),
    );
    expect(raw).toContain('Your pro plan');
    expect(
      sink.messages.filter((candidate) => candidate.raw.toString('utf8').includes('Subject: Hi ')),
    ).toHaveLength(1);

    // Re-entry is off: a second trigger for the same contact starts nothing.
    await api('POST', '/v1/track', { event: 'trial-started', email: 'pro@example.org' });
    await new Promise((resolve) => setTimeout(resolve, 500));
    const all = (await api('GET', `${base}/executions`)).body as { data: Execution[] };
    expect(all.data).toHaveLength(2);

    // A hand-started execution, then cancel-all.
    const contacts = (await api('GET', '/contacts?limit=100')).body as {
      data: { id: string; email: string }[];
    };
    const other = contacts.data.find((contact) => contact.email === 'free@example.org');
    await api('PATCH', base, { allowReentry: true });
    const manual = await created<Execution>(`${base}/executions`, {
      contactId: other!.id,
      context: { source: 'manual' },
    });
    expect(manual.context).toEqual({ source: 'manual' });
    await eventually('the manual execution waits', async () => {
      const found = (await api('GET', `${base}/executions/${manual.id}`)).body as Execution;
      return found.status === 'WAITING' ? found : undefined;
    });
    const cancelled = await api('POST', `${base}/executions/cancel-all`);
    expect(cancelled.body).toEqual({ success: true, cancelled: 1 });
    expect(((await api('GET', `${base}/executions/${manual.id}`)).body as Execution).status).toBe(
      'CANCELLED',
    );
    expect((await api('DELETE', base)).status).toBe(200);
  });
});

/** A linear workflow: the trigger, then `steps` in order; enabled. */
async function linear(
  name: string,
  eventName: string,
  steps: { type: string; config: Record<string, unknown> }[],
): Promise<{ workflow: Workflow; steps: Step[] }> {
  const workflow = await created<Workflow>('/workflows', { name, eventName });
  const base = `/workflows/${workflow.id}`;
  const added: Step[] = [];
  for (const step of steps) added.push(await created<Step>(`${base}/steps`, step));
  const chain = [workflow.steps[0]!, ...added];
  for (let index = 1; index < chain.length; index++) {
    await created(`${base}/transitions`, {
      fromStepId: chain[index - 1]!.id,
      toStepId: chain[index]!.id,
    });
  }
  expect((await api('PATCH', base, { enabled: true })).status).toBe(200);
  return { workflow, steps: added };
}

describe('definition endpoints', () => {
  it('reads one workflow and the fields, edits a step, removes a transition and splices a step out', async () => {
    await api('POST', '/contacts', { email: 'fields@example.org', data: { plan: 'pro' } });
    const workflow = await created<Workflow>('/workflows', {
      name: 'Edits',
      eventName: 'edited',
      description: 'For editing',
    });
    const base = `/workflows/${workflow.id}`;
    const delay = await created<Step>(`${base}/steps`, {
      type: 'DELAY',
      config: { amount: 1, unit: 'hours' },
    });
    const wait = await created<Step>(`${base}/steps`, {
      type: 'WAIT_FOR_EVENT',
      config: { eventName: 'confirmed' },
    });
    const first = await created<{ id: string }>(`${base}/transitions`, {
      fromStepId: workflow.steps[0]!.id,
      toStepId: delay.id,
    });
    await created(`${base}/transitions`, { fromStepId: delay.id, toStepId: wait.id });

    const read = await api('GET', base);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({
      id: workflow.id,
      name: 'Edits',
      description: 'For editing',
      steps: [{ type: 'TRIGGER' }, { id: delay.id }, { id: wait.id }],
      transitions: [{ id: first.id }, { fromStepId: delay.id, toStepId: wait.id }],
    });
    expect((await api('GET', '/workflows/unknown')).status).toBe(404);

    const fields = (await api('GET', '/workflows/fields')).body as {
      contact: string[];
      data: string[];
      event: string[];
    };
    expect(fields.contact).toEqual(expect.arrayContaining(['contact.email', 'contact.subscribed']));
    expect(fields.data).toContain('data.plan');
    expect(fields.event).toEqual(expect.arrayContaining(['edited', 'confirmed']));

    // A step's name and config change; a config the type refuses changes nothing.
    const renamed = await api('PATCH', `${base}/steps/${delay.id}`, {
      name: 'Two hours',
      config: { amount: 2, unit: 'hours' },
    });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ name: 'Two hours', config: { amount: 2, unit: 'hours' } });
    const refused = await api('PATCH', `${base}/steps/${delay.id}`, {
      config: { amount: 2, unit: 'weeks' },
    });
    expect(refused.status).toBe(422);
    expect(JSON.stringify(refused.body)).toContain('config.unit');
    const send = await created<Step>(`${base}/steps`, {
      type: 'SEND_EMAIL',
      config: { templateId },
    });
    const unknownTemplate = await api('PATCH', `${base}/steps/${send.id}`, {
      config: { templateId: 'missing' },
    });
    expect(unknownTemplate.status).toBe(422);
    const after = (await api('GET', base)).body as { steps: (Step & { config: unknown })[] };
    expect(after.steps.find((step) => step.id === send.id)?.config).toEqual({ templateId });
    expect(after.steps.find((step) => step.id === delay.id)?.config).toEqual({
      amount: 2,
      unit: 'hours',
    });
    expect((await api('PATCH', `${base}/steps/unknown`, { name: 'x' })).status).toBe(404);

    // Splicing the DELAY out leads the trigger to the wait.
    const spliced = await api('DELETE', `${base}/steps/${delay.id}?splice=true`);
    expect(spliced.status).toBe(200);
    expect((spliced.body as Workflow).transitions).toMatchObject([
      { fromStepId: workflow.steps[0]!.id, toStepId: wait.id },
    ]);
    const link = (spliced.body as Workflow).transitions[0]!;
    const unlinked = await api('DELETE', `${base}/transitions/${link.id}`);
    expect(unlinked.status).toBe(200);
    expect((unlinked.body as Workflow).transitions).toEqual([]);
    expect((await api('DELETE', `${base}/transitions/${link.id}`)).status).toBe(404);
    expect((await api('DELETE', `${base}/steps/${wait.id}`)).status).toBe(200);
    expect(((await api('GET', base)).body as Workflow).steps.map((step) => step.type)).toEqual([
      'TRIGGER',
      'SEND_EMAIL',
    ]);
  });
});

/** A loopback HTTP server that records the requests it answers. */
async function startReceiver(): Promise<{
  url: string;
  requests: { headers: IncomingHttpHeaders; body: string }[];
  server: Server;
}> {
  const requests: { headers: IncomingHttpHeaders; body: string }[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      requests.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"received":true}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    requests,
    server,
  };
}

describe('delays, webhooks and contact updates', () => {
  it('waits on a durable timer, calls the webhook with the rendered body, updates and unsubscribes the contact', async () => {
    const receiver = await startReceiver();
    try {
      const { workflow, steps } = await linear('Nurture', 'nurture', [
        { type: 'DELAY', config: { amount: 0.02, unit: 'minutes' } },
        {
          type: 'WEBHOOK',
          config: {
            url: receiver.url,
            method: 'POST',
            headers: { 'x-source': 'stamp' },
            body: { email: '{{ contact.email }}', plan: '{{ event.plan }}' },
          },
        },
        {
          type: 'UPDATE_CONTACT',
          config: { updates: { stage: 'nurtured' }, subscriptionAction: 'unsubscribe' },
        },
      ]);
      const base = `/workflows/${workflow.id}`;
      const tracked = await api('POST', '/v1/track', {
        event: 'nurture',
        email: 'nurture@example.org',
        data: { plan: 'team' },
        subscribed: true,
      });
      expect(tracked.status).toBe(200);
      const waiting = await eventually('the execution waits in the delay', async () => {
        const page = (await api('GET', `${base}/executions?status=WAITING`)).body as {
          data: Execution[];
        };
        return page.data[0];
      });
      expect(waiting.currentStepId).toBe(steps[0]!.id);
      expect(Date.parse(waiting.nextRunAt ?? '')).toBeGreaterThan(Date.now());

      const done = await eventually(
        'the execution completes',
        async () => {
          const found = (await api('GET', `${base}/executions/${waiting.id}`)).body as Execution;
          return found.status === 'COMPLETED' ? found : undefined;
        },
        { timeoutMs: 15_000, intervalMs: 100 },
      );
      expect(done.history.map((entry) => entry.outcome)).toEqual([
        'elapsed',
        'delivered',
        'updated',
      ]);
      expect(done.history[1]?.output).toEqual({ status: 200, body: '{"received":true}' });
      expect(receiver.requests).toHaveLength(1);
      expect(JSON.parse(receiver.requests[0]!.body)).toEqual({
        email: 'nurture@example.org',
        plan: 'team',
      });
      expect(receiver.requests[0]!.headers['x-source']).toBe('stamp');
      expect(receiver.requests[0]!.headers['idempotency-key']).toEqual(expect.any(String));

      const contacts = (await api('GET', '/contacts?search=nurture@example.org')).body as {
        data: { id: string; subscribed: boolean; data: Record<string, unknown> }[];
      };
      expect(contacts.data[0]).toMatchObject({ subscribed: false, data: { stage: 'nurtured' } });
      const contactId = contacts.data[0]!.id;
      const feed = await eventually('contact.unsubscribed in the activity feed', async () => {
        const page = (
          await api('GET', `/activity?type=contact.unsubscribed&contactId=${contactId}`)
        ).body as { data: unknown[] };
        return page.data.length === 1 ? page.data : undefined;
      });
      expect(feed).toHaveLength(1);
    } finally {
      await new Promise((resolve) => receiver.server.close(resolve));
    }
  });

  it('cancels one waiting execution; a cancelled or unknown one answers as it is', async () => {
    const { workflow } = await linear('Long wait', 'long-wait', [
      { type: 'DELAY', config: { amount: 2, unit: 'days' } },
    ]);
    const base = `/workflows/${workflow.id}`;
    await api('POST', '/v1/track', { event: 'long-wait', email: 'patient@example.org' });
    const waiting = await eventually('the execution waits', async () => {
      const page = (await api('GET', `${base}/executions?status=WAITING`)).body as {
        data: Execution[];
      };
      return page.data[0];
    });
    const cancelled = await api('DELETE', `${base}/executions/${waiting.id}`);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ id: waiting.id, status: 'CANCELLED' });
    const again = await api('DELETE', `${base}/executions/${waiting.id}`);
    expect(again.body).toMatchObject({ status: 'CANCELLED' });
    expect((await api('DELETE', `${base}/executions/unknown`)).status).toBe(404);
    expect((await api('GET', `${base}/executions/unknown`)).status).toBe(404);
  });

  it('refuses a loopback webhook target where private targets are not allowed', async () => {
    const receiver = await startReceiver();
    const strict = await startTestStamp({ STAMP_DNS_SERVERS: dns.address });
    try {
      const on = (method: string, path: string, body?: unknown) =>
        call(strict.url, sk, method, path, body);
      const workflow = (await on('POST', '/workflows', { name: 'Hook', eventName: 'hook' }))
        .body as Workflow;
      const base = `/workflows/${workflow.id}`;
      const hook = (
        await on('POST', `${base}/steps`, { type: 'WEBHOOK', config: { url: receiver.url } })
      ).body as Step;
      await on('POST', `${base}/transitions`, {
        fromStepId: workflow.steps[0]!.id,
        toStepId: hook.id,
      });
      const contact = (await on('POST', '/contacts', { email: 'strict@example.org' })).body as {
        id: string;
      };
      const started = await on('POST', `${base}/executions`, { contactId: contact.id });
      expect(started.status).toBe(201);
      const failed = await eventually('the execution fails', async () => {
        const found = (await on('GET', `${base}/executions/${(started.body as Execution).id}`))
          .body as Execution;
        return found.status === 'FAILED' ? found : undefined;
      });
      expect(failed.error).toMatch(/private|loopback|not allowed|refused/i);
      expect(receiver.requests).toEqual([]);
    } finally {
      await strict.close();
      await new Promise((resolve) => receiver.server.close(resolve));
    }
  });
});
