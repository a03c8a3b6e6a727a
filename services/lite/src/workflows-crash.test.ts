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

import { eventually } from '@stamp/testkit/eventually.ts';
import type { SmtpSink } from '@stamp/testkit/smtp-sink.ts';

import { call, crashRig, TEST_KEYS } from './testing.ts';

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
function deliveriesOf(sink: SmtpSink, subject: string): Delivery[] {
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
  // The 1,000 tracks and the polling exceed the default 1,000 requests a minute.
  const rig = crashRig('stamp-workflows-crash-', { STAMP_RATE_LIMIT_PER_MINUTE: '100000' });

  it('completes every execution after a restart, each email sent once (at most one duplicate)', async () => {
    const { url, sink } = rig;
    const sk = TEST_KEYS.secretKey;
    const created = async <T>(path: string, body: unknown): Promise<T> => {
      const response = await call(url, sk, 'POST', path, body);
      expect(response.status).toBe(201);
      return response.body as T;
    };
    await rig.start();
    await rig.verifyDomain('crash.test');

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
    await rig.stop('SIGKILL');
    // Work was really in progress: welcomes delivered, followups still missing.
    const welcomesAtKill = deliveriesOf(sink, WELCOME).length;
    const followupsAtKill = deliveriesOf(sink, FOLLOWUP).length;
    expect(welcomesAtKill).toBeGreaterThan(0);
    expect(followupsAtKill).toBeLessThan(CONTACTS);

    await rig.start();
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

    await rig.stop('SIGTERM');
  }, 240_000);
});
