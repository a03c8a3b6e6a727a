/**
 * Crash safety of workflows (spec part 4 "Workflows"; architecture brief, "Process managers"):
 * `kill -9` of the embedded platform while 1,000 executions of a workflow are between its steps,
 * then a restart on the same data folder. The workflow is trigger `crash.signup` → SEND_EMAIL
 * ("Crash welcome") → DELAY (3 s) → SEND_EMAIL ("Crash followup"); the event is tracked for
 * 1,000 contacts and the process is killed once welcomes reached the real SMTP sink but before
 * every followup did. After the restart every execution completes (none fails or stays stuck),
 * each with the history sent → elapsed → sent, and every contact received exactly one welcome and
 * one followup: the crash costs at most one duplicate (an email handed to SMTP whose delivery
 * record the kill prevented), never a lost email.
 */
import type { ChildProcess } from 'node:child_process';

import { startDnsServer, type TestDnsServer } from '@stamp/testkit/dns-server.ts';
import { eventually } from '@stamp/testkit/eventually.ts';
import { freePort } from '@stamp/testkit/net.ts';
import { startSmtpSink } from '@stamp/testkit/smtp-sink.ts';
import { temporaryDirectory } from '@stamp/testkit/temporary.ts';

import { call, startProcess, stopProcess, TEST_KEYS } from './testing.ts';

type Sink = Awaited<ReturnType<typeof startSmtpSink>>;

interface Step {
  id: string;
  type: string;
}
interface Workflow {
  id: string;
  steps: Step[];
}
interface Execution {
  id: string;
  contactId: string;
  status: string;
  error: string | null;
  history: { stepId: string; outcome: string }[];
}
interface ExecutionPage {
  data: Execution[];
  cursor: string;
  hasMore: boolean;
  total: number;
}

const CONTACTS = 1000;
const WELCOME = 'Crash welcome';
const FOLLOWUP = 'Crash followup';
/** Concurrent POST /v1/track calls. */
const TRACKERS = 16;

/** How long and how often the test waits for a step of the scenario (ms). */
const PATIENCE = { timeoutMs: 120_000, intervalMs: 100 };

/** A message of the sink: its recipient and the email id Stamp gave it. */
interface Delivery {
  to: string;
  emailId: string;
}

/** The messages of the sink whose subject is `subject`. */
function deliveriesOf(sink: Sink, subject: string): Delivery[] {
  const pattern = new RegExp(`^Subject: ${subject}\\r?$`, 'm');
  return sink.messages
    .map((message) => message.raw.toString('utf8'))
    .filter((raw) => pattern.test(raw))
    .map((raw) => ({
      to: /^To: (\S+)/m.exec(raw)?.[1] ?? '',
      emailId: /^X-Stamp-Email-Id:\s*(\S+)/im.exec(raw)?.[1] ?? '',
    }));
}

/** How many messages each recipient received. */
function countsOf(deliveries: readonly Delivery[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const { to } of deliveries) counts.set(to, (counts.get(to) ?? 0) + 1);
  return counts;
}

describe('crash safety of workflows (kill -9 while 1,000 executions are between steps)', () => {
  let dns: TestDnsServer;
  let sink: Sink;
  let child: ChildProcess | undefined;

  beforeAll(async () => {
    dns = await startDnsServer({});
    sink = await startSmtpSink();
  });

  afterAll(async () => {
    // Its data folder goes after the test file: once the process has exited.
    if (child !== undefined) await stopProcess(child, 'SIGKILL');
    await sink.close();
    await dns.close();
  });

  it('completes every execution after a restart, each email sent once (at most one duplicate)', async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const env = {
      STAMP_PORT: String(port),
      STAMP_DATA_DIR: temporaryDirectory('stamp-workflows-crash-'),
      STAMP_SMTP_URL: sink.url,
      STAMP_DNS_SERVERS: dns.address,
      STAMP_BOOTSTRAP_SECRET_KEY: TEST_KEYS.secretKey,
      STAMP_BOOTSTRAP_PUBLIC_KEY: TEST_KEYS.publicKey,
      STAMP_RATE_LIMIT_PER_MINUTE: '100000',
      STAMP_LOG_LEVEL: 'silent',
    };
    const sk = TEST_KEYS.secretKey;
    const created = async <T>(path: string, body: unknown): Promise<T> => {
      const response = await call(url, sk, 'POST', path, body);
      expect(response.status).toBe(201);
      return response.body as T;
    };
    child = await startProcess(env, url);
    const added = await call(url, sk, 'POST', '/domains', { domain: 'crash.test' });
    const dkim = (
      added.body as { id: string; records: { purpose: string; name: string; value: string }[] }
    ).records.find((record) => record.purpose === 'DKIM')!;
    dns.set(dkim.name, { TXT: [dkim.value] });
    await call(url, sk, 'GET', `/domains/${(added.body as { id: string }).id}/verify`);

    const template = (subject: string) =>
      created<{ id: string }>('/templates', {
        name: subject,
        subject,
        body: `<p>${subject} {{ email }}</p>`,
        from: 'flows@crash.test',
        type: 'TRANSACTIONAL',
      });
    const welcome = await template(WELCOME);
    const followup = await template(FOLLOWUP);
    const workflow = await created<Workflow>('/workflows', {
      name: 'Crash',
      eventName: 'crash.signup',
    });
    const base = `/workflows/${workflow.id}`;
    const sendWelcome = await created<Step>(`${base}/steps`, {
      type: 'SEND_EMAIL',
      name: 'Welcome',
      config: { templateId: welcome.id },
    });
    const delay = await created<Step>(`${base}/steps`, {
      type: 'DELAY',
      name: 'Pause',
      config: { amount: 0.05, unit: 'minutes' },
    });
    const sendFollowup = await created<Step>(`${base}/steps`, {
      type: 'SEND_EMAIL',
      name: 'Followup',
      config: { templateId: followup.id },
    });
    const chain = [workflow.steps[0]!, sendWelcome, delay, sendFollowup];
    for (let index = 1; index < chain.length; index++) {
      await created(`${base}/transitions`, {
        fromStepId: chain[index - 1]!.id,
        toStepId: chain[index]!.id,
      });
    }
    expect((await call(url, sk, 'PATCH', base, { enabled: true })).status).toBe(200);

    const emails = Array.from({ length: CONTACTS }, (_, index) => `c${index}@example.org`);
    let next = 0;
    const tracker = async (): Promise<void> => {
      while (next < emails.length) {
        const email = emails[next++]!;
        const tracked = await call(url, sk, 'POST', '/v1/track', {
          event: 'crash.signup',
          email,
          data: { plan: 'crash' },
        });
        expect(tracked.status).toBe(200);
      }
    };
    await Promise.all(Array.from({ length: TRACKERS }, tracker));
    const total = async (status: string): Promise<number> =>
      (
        (await call(url, sk, 'GET', `${base}/executions?status=${status}&limit=1`))
          .body as ExecutionPage
      ).total;
    // Kill once hundreds of welcomes went out and executions wait in the DELAY.
    await eventually(
      'hundreds of welcomes delivered and executions waiting in the delay',
      async () => {
        if (deliveriesOf(sink, WELCOME).length < 300) return undefined;
        const waiting = await total('WAITING');
        return waiting > 0 ? waiting : undefined;
      },
      PATIENCE,
    );
    await stopProcess(child, 'SIGKILL');
    // Work was really in progress: welcomes delivered, followups still missing.
    const welcomesAtKill = deliveriesOf(sink, WELCOME).length;
    const followupsAtKill = deliveriesOf(sink, FOLLOWUP).length;
    expect(welcomesAtKill).toBeGreaterThan(0);
    expect(followupsAtKill).toBeLessThan(CONTACTS);

    child = await startProcess(env, url);
    await eventually(
      'every execution ended',
      async () =>
        (await total('COMPLETED')) + (await total('FAILED')) + (await total('EXITED')) >=
          CONTACTS || undefined,
      PATIENCE,
    );
    await eventually(
      'every followup delivered',
      async () => countsOf(deliveriesOf(sink, FOLLOWUP)).size >= CONTACTS || undefined,
      PATIENCE,
    );
    // A late duplicate would arrive now.
    await new Promise((resolve) => setTimeout(resolve, 500));

    const executions: Execution[] = [];
    let cursor = '';
    do {
      const page = (await call(url, sk, 'GET', `${base}/executions?limit=100&cursor=${cursor}`))
        .body as ExecutionPage;
      executions.push(...page.data);
      cursor = page.hasMore ? page.cursor : '';
    } while (cursor !== '');
    expect(executions).toHaveLength(CONTACTS);
    expect(new Set(executions.map((execution) => execution.contactId)).size).toBe(CONTACTS);
    expect(executions.filter((execution) => execution.status !== 'COMPLETED')).toEqual([]);
    const paths = new Set(
      executions.map((execution) =>
        execution.history.map((entry) => `${entry.stepId}:${entry.outcome}`).join(' → '),
      ),
    );
    expect([...paths]).toEqual([
      `${sendWelcome.id}:sent → ${delay.id}:elapsed → ${sendFollowup.id}:sent`,
    ]);

    let duplicates = 0;
    for (const subject of [WELCOME, FOLLOWUP]) {
      const deliveries = deliveriesOf(sink, subject);
      const counts = countsOf(deliveries);
      expect(emails.filter((email) => !counts.has(email))).toEqual([]);
      expect(counts.size).toBe(CONTACTS);
      // One email id per recipient: a second id would be a step run twice, not a redelivery.
      expect(new Set(deliveries.map((delivery) => delivery.emailId)).size).toBe(CONTACTS);
      duplicates += deliveries.length - CONTACTS;
    }
    expect(duplicates).toBeLessThanOrEqual(1);

    await stopProcess(child, 'SIGTERM');
    child = undefined;
  }, 240_000);
});
