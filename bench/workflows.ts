import autocannon from 'autocannon';

import { derivedId } from '@stamp/platform';
import { startDnsServer } from '@stamp/testkit/dns-server.ts';
import { startSmtpSink } from '@stamp/testkit/smtp-sink.ts';

import { figure, KEYS, startProcess, startStamp } from './harness.ts';

/**
 * Workflows on the embedded platform (one process), emails relayed to an SMTP sink on loopback
 * (a verified domain with DKIM, as `bench campaign`). Three workflows are created and enabled
 * before the first event is tracked:
 * - the journey, event `bench-journey`: TRIGGER → SEND_EMAIL → DELAY `DELAY_MINUTES` (default
 *   1) → UPDATE_CONTACT → SEND_EMAIL: five steps counting the trigger, four run per execution
 *   (the trigger has no history entry: an execution starts at the step after it), two emails each;
 * - the probe, event `bench-probe`: TRIGGER → SEND_EMAIL;
 * - the waiting one, event `bench-waiting`: TRIGGER → DELAY 1 day.
 *
 * Figures, in the order printed:
 * - baselines first, a bare Express route (`bare-server.ts`) in its own process: the rate of
 *   CONTACTS `POST /v1/track` requests over CONNECTIONS (default 50) connections after 1,000 to
 *   warm it up (`bare_express.track_rate`, timed to the last response), and the latency of
 *   SAMPLES sequential ones (p50, p99);
 * - `workflows.rss_idle`: Stamp's resident memory (VmRSS) after start and setup;
 * - track → first step, quiet (nothing else runs): SAMPLES (default 100) sequential
 *   `POST /v1/track` of `bench-probe` for new contacts. Compared instants, one wall clock (both
 *   processes on this host): `Date.now()` just before the request is sent, and the `completedAt`
 *   of the execution's first history entry, the SEND_EMAIL step (its email queued, the record
 *   decided), read by polling `GET /workflows/:id/executions/:executionId` (the id is derived from
 *   the workflow and the tracked event's id, as the trigger consumer derives it). Printed as p50,
 *   p99 (the goal: p99 ≤ 100 ms) and the ratio of the p99 to the bare route's p99, with the p50s
 *   of the parts: the track's answer, the execution's `startedAt` (the trigger consumer), and
 *   `startedAt` → the step's `completedAt` (the engine);
 * - the journey: CONTACTS (default 10,000) new contacts tracked over CONNECTIONS connections. The
 *   rate of the tracks beside the bare route's, and the time from the first track to every
 *   execution started (max `startedAt`) and to every first email step done (max `completedAt`
 *   of the first history entry);
 * - the end of the delay to all executions COMPLETED (the goal: ≤ 90 s): from the latest DELAY
 *   end (max `nextRunAt` of the WAITING executions, listed once every execution has reached the
 *   delay) to the latest `completedAt`, both Stamp's clock; with the per-execution lag from its
 *   own delay end to its completion (p50, p99) and to its timer firing (the DELAY entry's
 *   `completedAt`, p99), the executions in each status when some did not complete, and the
 *   journey's emails at the sink and the time from the latest DELAY end to the last of them;
 * - the waiting executions: WAITING (default 100,000) new contacts tracked into the 1-day DELAY,
 *   the time until all are WAITING, Stamp's resident memory then (`workflows.rss_with_waiting`)
 *   beside `workflows.rss_idle` of the same run, its growth over `workflows.rss_after_journey`
 *   per waiting execution (contacts included; telling only at a large WAITING, the caches of the
 *   process fill to their bounds first), and the peak sampled every 250 ms;
 * - track → first step again, SAMPLES tracks with the WAITING executions in place (`_loaded`).
 *
 * An execution count that stops moving for STALL_SECONDS (default 120) ends a wait: the
 * figures then say how many executions are in which status, instead of hanging.
 */
const contacts = Number(process.env.CONTACTS ?? 10_000);
const waitingCount = Number(process.env.WAITING ?? 100_000);
const samples = Number(process.env.SAMPLES ?? 100);
const connections = Number(process.env.CONNECTIONS ?? 50);
const delayMinutes = Number(process.env.DELAY_MINUTES ?? 1);
const stallMs = Number(process.env.STALL_SECONDS ?? 120) * 1000;

const headers = { authorization: `Bearer ${KEYS.secretKey}`, 'content-type': 'application/json' };
const sleep = (ms: number): Promise<void> =>
  new Promise((resolve) => {
    setTimeout(resolve, ms);
  });
const mib = (bytes: number): number => Math.round(bytes / 2 ** 20);
const quantile = (values: readonly number[], q: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
};

/** One HTTP exchange: its status and parsed body (null when not JSON). */
async function request(
  base: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: unknown }> {
  const response = await fetch(base + path, {
    method,
    headers,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  let parsed: unknown = null;
  try {
    parsed = JSON.parse(text) as unknown;
  } catch {
    // not JSON
  }
  return { status: response.status, body: parsed };
}

/** A request that must succeed: its body. @throws Error on a status ≥ 300. */
async function ok<T>(base: string, method: string, path: string, body?: unknown): Promise<T> {
  const answer = await request(base, method, path, body);
  if (answer.status >= 300) {
    throw new Error(`${method} ${path}: ${answer.status} ${JSON.stringify(answer.body)}`);
  }
  return answer.body as T;
}

/**
 * `amount` POST /v1/track requests over {@link connections} connections, bodies from `body`;
 * answers the seconds from the start to the last response (autocannon's own duration is counted
 * in whole seconds) and autocannon's result.
 */
async function blast(
  base: string,
  amount: number,
  body: (index: number) => unknown,
): Promise<{ seconds: number; result: autocannon.Result }> {
  let counter = 0;
  const started = performance.now();
  let last = started;
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: `${base}/v1/track`,
        connections,
        amount,
        requests: [
          {
            method: 'POST',
            headers,
            setupRequest: (prepared) => ({ ...prepared, body: JSON.stringify(body(counter++)) }),
          },
        ],
      },
      (error: Error | null, done: autocannon.Result) => {
        if (error === null) resolve(done);
        else reject(error);
      },
    );
    instance.on('response', () => {
      last = performance.now();
    });
  });
  return { seconds: (last - started) / 1000, result };
}

// Baselines, same run: the bare Express route, alone on the host.
const bare = await startProcess('bench/bare-server.ts', {});
await blast(bare.url, 1000, (index) => ({ event: 'warm-up', email: `warm${index}@example.org` }));
const bareBlast = await blast(bare.url, contacts, (index) => ({
  event: 'bench-journey',
  email: `j${index}@example.org`,
  data: { plan: 'pro' },
}));
const bareTimes: number[] = [];
for (let sample = 0; sample < samples; sample += 1) {
  const started = performance.now();
  await ok(bare.url, 'POST', '/v1/track', {
    event: 'bench-probe',
    email: `bare${sample}@example.org`,
  });
  bareTimes.push(performance.now() - started);
}
await bare.stop();
const bareRate = bareBlast.result['2xx'] / bareBlast.seconds;
figure('bare_express.track_rate', bareRate, 'req/s');
figure('bare_express.track_latency_p50', quantile(bareTimes, 0.5), 'ms');
figure('bare_express.track_latency_p99', quantile(bareTimes, 0.99), 'ms');

const dns = await startDnsServer({});
const sink = await startSmtpSink();
const stamp = await startStamp({ STAMP_SMTP_URL: sink.url, STAMP_DNS_SERVERS: dns.address });
const api = <T>(method: string, path: string, body?: unknown): Promise<T> =>
  ok<T>(stamp.url, method, path, body);

const domain = await api<{
  id: string;
  records: { purpose: string; name: string; value: string }[];
}>('POST', '/domains', { domain: 'flows.bench.test' });
const dkim = domain.records.find((record) => record.purpose === 'DKIM');
if (dkim === undefined) throw new Error('no DKIM record');
dns.set(dkim.name, { TXT: [dkim.value] });
await api('GET', `/domains/${domain.id}/verify`);

/** Creates a transactional template; its id. */
async function template(name: string, subject: string): Promise<string> {
  const created = await api<{ id: string }>('POST', '/templates', {
    name,
    subject,
    body: `<p>${name} for {{ email }}, plan {{ event.plan }}.</p>`,
    from: 'flows@flows.bench.test',
    type: 'TRANSACTIONAL',
  });
  return created.id;
}
const welcome = await template('Journey welcome', 'Journey welcome {{ event.plan }}');
const followUp = await template('Journey follow-up', 'Journey follow-up {{ data.stage }}');
const probeTemplate = await template('Probe', 'Probe {{ email }}');

interface Step {
  id: string;
  type: string;
}
/** Creates and enables a workflow on `eventName` whose steps follow the trigger in a line. */
async function chain(
  name: string,
  eventName: string,
  steps: { type: string; config: Record<string, unknown> }[],
): Promise<string> {
  const workflow = await api<{ id: string; steps: Step[] }>('POST', '/workflows', {
    name,
    eventName,
  });
  let previous = workflow.steps[0]!.id;
  for (const step of steps) {
    const added = await api<Step>('POST', `/workflows/${workflow.id}/steps`, step);
    await api('POST', `/workflows/${workflow.id}/transitions`, {
      fromStepId: previous,
      toStepId: added.id,
    });
    previous = added.id;
  }
  await api('PATCH', `/workflows/${workflow.id}`, { enabled: true });
  return workflow.id;
}
const journey = await chain('Journey', 'bench-journey', [
  { type: 'SEND_EMAIL', config: { templateId: welcome } },
  { type: 'DELAY', config: { amount: delayMinutes, unit: 'minutes' } },
  { type: 'UPDATE_CONTACT', config: { updates: { stage: 'followed-up' } } },
  { type: 'SEND_EMAIL', config: { templateId: followUp } },
]);
const probe = await chain('Probe', 'bench-probe', [
  { type: 'SEND_EMAIL', config: { templateId: probeTemplate } },
]);
const waiting = await chain('Waiting', 'bench-waiting', [
  { type: 'DELAY', config: { amount: 1, unit: 'days' } },
]);

await sleep(1000);
const idleRss = stamp.rss();
figure('workflows.rss_idle', mib(idleRss), 'MiB');
let rssPeak = idleRss;
const sampler = setInterval(() => {
  rssPeak = Math.max(rssPeak, stamp.rss());
}, 250);

interface HistoryEntry {
  stepType: string;
  outcome: string;
  startedAt: string;
  completedAt: string;
}
interface Execution {
  id: string;
  status: string;
  nextRunAt: string | null;
  history: HistoryEntry[];
  startedAt: string;
  completedAt: string | null;
}
interface Page {
  data: Execution[];
  cursor: string;
  hasMore: boolean;
  total: number;
}
const STATUSES = ['RUNNING', 'WAITING', 'COMPLETED', 'EXITED', 'FAILED', 'CANCELLED'] as const;

/** How many executions of `workflowId` (in `status`) the list counts. */
async function count(workflowId: string, status?: string): Promise<number> {
  const query = status === undefined ? '' : `&status=${status}`;
  return (await api<Page>('GET', `/workflows/${workflowId}/executions?limit=1${query}`)).total;
}

/** Every execution of `workflowId` in `status`, page by page. */
async function list(workflowId: string, status: string): Promise<Execution[]> {
  const found: Execution[] = [];
  let cursor = '';
  for (;;) {
    const page = await api<Page>(
      'GET',
      `/workflows/${workflowId}/executions?limit=100&status=${status}&cursor=${encodeURIComponent(cursor)}`,
    );
    found.push(...page.data);
    if (!page.hasMore) return found;
    cursor = page.cursor;
  }
}

/**
 * Polls `progress` every `intervalMs` until it reaches `target`, or stops moving for
 * {@link stallMs}; the last value.
 */
async function until(
  what: string,
  progress: () => Promise<number>,
  target: number,
  intervalMs: number,
): Promise<number> {
  let last = -1;
  let moved = Date.now();
  for (;;) {
    const value = await progress();
    if (value >= target) return value;
    if (value !== last) {
      last = value;
      moved = Date.now();
    } else if (Date.now() - moved > stallMs) {
      process.stderr.write(`${what}: stuck at ${value} of ${target}\n`);
      return value;
    }
    await sleep(intervalMs);
  }
}

/** Prints the executions of `workflowId` in each status that has some. */
async function statuses(name: string, workflowId: string): Promise<void> {
  for (const status of STATUSES) {
    const inStatus = await count(workflowId, status);
    if (inStatus > 0) figure(`workflows.${name}_${status.toLowerCase()}`, inStatus, 'executions');
  }
}

/**
 * SAMPLES sequential tracks of `bench-probe`, each for a new contact, and the time from the
 * request to the probe execution's first step (see the docstring at the top).
 */
async function trackToFirstStep(label: string): Promise<void> {
  const total: number[] = [];
  const answer: number[] = [];
  const trigger: number[] = [];
  const engine: number[] = [];
  let missing = 0;
  for (let sample = 0; sample < samples; sample += 1) {
    const sent = Date.now();
    const tracked = await api<{ data: { event: string } }>('POST', '/v1/track', {
      event: 'bench-probe',
      email: `probe-${label}-${sample}@example.org`,
      data: { plan: 'pro' },
    });
    answer.push(Date.now() - sent);
    const executionId = derivedId(`workflowExecution:${probe}:${tracked.data.event}`);
    const path = `/workflows/${probe}/executions/${executionId}`;
    for (;;) {
      const found = await request(stamp.url, 'GET', path);
      const execution = found.status === 200 ? (found.body as Execution) : undefined;
      const first = execution?.history[0];
      if (execution !== undefined && first !== undefined) {
        const startedAt = Date.parse(execution.startedAt);
        const stepAt = Date.parse(first.completedAt);
        total.push(stepAt - sent);
        trigger.push(startedAt - sent);
        engine.push(stepAt - startedAt);
        break;
      }
      if (Date.now() - sent > 30_000) {
        missing += 1;
        break;
      }
      await sleep(2);
    }
  }
  const name = `workflows.track_to_first_step${label === 'quiet' ? '' : `_${label}`}`;
  figure(`${name}_p50`, quantile(total, 0.5), 'ms');
  figure(`${name}_p99`, quantile(total, 0.99), 'ms');
  figure(`${name}_p99_to_bare_express`, quantile(total, 0.99) / quantile(bareTimes, 0.99), 'x');
  figure(`${name}_missing`, missing, 'executions');
  figure(`${name}_parts_answer_p50`, quantile(answer, 0.5), 'ms');
  figure(`${name}_parts_started_p50`, quantile(trigger, 0.5), 'ms');
  figure(`${name}_parts_engine_p50`, quantile(engine, 0.5), 'ms');
}

await trackToFirstStep('quiet');

// Journey emails at the sink, by subject, with the instant the last one arrived.
const journeyMails = { welcome: 0, followUp: 0, lastAt: 0 };
let scanned = 0;
const scanner = setInterval(() => {
  for (; scanned < sink.messages.length; scanned += 1) {
    const head = sink.messages[scanned]!.raw.toString('latin1', 0, 4096);
    const subject = /^Subject: (Journey welcome|Journey follow-up)/m.exec(head)?.[1];
    if (subject === undefined) continue;
    if (subject === 'Journey welcome') journeyMails.welcome += 1;
    else journeyMails.followUp += 1;
    journeyMails.lastAt = Date.now();
  }
}, 50);

const journeyStart = Date.now();
const entered = await blast(stamp.url, contacts, (index) => ({
  event: 'bench-journey',
  email: `j${index}@example.org`,
  data: { plan: 'pro' },
}));
const trackRate = entered.result['2xx'] / entered.seconds;
figure('workflows.journey_tracks', entered.result['2xx'], 'requests');
figure('workflows.journey_tracks_non2xx', entered.result.non2xx, 'responses');
figure('workflows.journey_track_rate', trackRate, 'req/s');
figure('workflows.journey_track_rate_to_bare_express', trackRate / bareRate, 'x');
figure('workflows.journey_track_latency_p99', entered.result.latency.p99, 'ms');

// Every execution has reached the delay: all started, none RUNNING before its DELAY.
await until(
  'journey executions at the delay',
  async () => {
    if ((await count(journey)) < contacts) return 0;
    const running = await count(journey, 'RUNNING');
    if (running === 0) return contacts;
    if (running > 500) return contacts - running;
    const early = (await list(journey, 'RUNNING')).filter(
      (execution) => !execution.history.some((entry) => entry.stepType === 'DELAY'),
    ).length;
    return contacts - early;
  },
  contacts,
  500,
);
const dueAt = new Map<string, number>();
for (const execution of await list(journey, 'WAITING')) {
  if (execution.nextRunAt !== null) dueAt.set(execution.id, Date.parse(execution.nextRunAt));
}
const latest = (values: Iterable<number>): number => {
  let max = -Infinity;
  for (const value of values) max = Math.max(max, value);
  return max;
};
const lastDue = latest(dueAt.values());

const ended = await until(
  'journey executions ended',
  async () => contacts - (await count(journey, 'RUNNING')) - (await count(journey, 'WAITING')),
  contacts,
  500,
);
const completed = await list(journey, 'COMPLETED');
const at = (iso: string | null | undefined): number => (iso == null ? NaN : Date.parse(iso));
const lastCompleted = latest(completed.map((execution) => at(execution.completedAt)));
const lastStarted = latest(completed.map((execution) => at(execution.startedAt)));
const lastFirstStep = latest(completed.map((execution) => at(execution.history[0]?.completedAt)));
const lag: number[] = [];
const timerLag: number[] = [];
for (const execution of completed) {
  const due = dueAt.get(execution.id);
  if (due === undefined) continue;
  lag.push(at(execution.completedAt) - due);
  const delay = execution.history.find((entry) => entry.stepType === 'DELAY');
  timerLag.push(at(delay?.completedAt) - due);
}
figure('workflows.journey_all_started', (lastStarted - journeyStart) / 1000, 's');
figure('workflows.journey_all_first_step_done', (lastFirstStep - journeyStart) / 1000, 's');
figure('workflows.journey_delay_seen', dueAt.size, 'executions');
figure('workflows.journey_completed', completed.length, 'executions');
if (ended < contacts || completed.length < contacts) await statuses('journey', journey);
const toCompleted = (lastCompleted - lastDue) / 1000;
figure('workflows.delay_end_to_all_completed', toCompleted, 's');
figure('workflows.delay_end_to_all_completed_to_goal_90s', toCompleted / 90, 'x');
figure('workflows.delay_end_to_completed_p50', quantile(lag, 0.5), 'ms');
figure('workflows.delay_end_to_completed_p99', quantile(lag, 0.99), 'ms');
figure('workflows.delay_end_to_timer_fired_p99', quantile(timerLag, 0.99), 'ms');

await until(
  'journey emails at the sink',
  async () => journeyMails.welcome + journeyMails.followUp,
  2 * completed.length,
  100,
);
clearInterval(scanner);
figure('workflows.journey_emails_welcome', journeyMails.welcome, 'emails');
figure('workflows.journey_emails_follow_up', journeyMails.followUp, 'emails');
figure('workflows.delay_end_to_all_emails_at_sink', (journeyMails.lastAt - lastDue) / 1000, 's');
const afterJourney = stamp.rss();
figure('workflows.rss_after_journey', mib(afterJourney), 'MiB');

// The waiting executions.
const waitingStart = performance.now();
const parked = await blast(stamp.url, waitingCount, (index) => ({
  event: 'bench-waiting',
  email: `w${index}@example.org`,
}));
figure('workflows.waiting_tracks', parked.result['2xx'], 'requests');
figure('workflows.waiting_track_rate', parked.result['2xx'] / parked.seconds, 'req/s');
const waitingNow = await until(
  'waiting executions',
  () => count(waiting, 'WAITING'),
  waitingCount,
  500,
);
figure('workflows.waiting_executions', waitingNow, 'executions');
figure('workflows.waiting_enter_time', (performance.now() - waitingStart) / 1000, 's');
if (waitingNow < waitingCount) await statuses('waiting', waiting);
await sleep(5000);
const withWaiting = stamp.rss();
figure('workflows.rss_with_waiting', mib(withWaiting), 'MiB');
figure('workflows.rss_with_waiting_to_idle', withWaiting / idleRss, 'x');
figure(
  'workflows.rss_per_waiting_execution',
  Math.round((withWaiting - afterJourney) / Math.max(1, waitingNow)),
  'bytes',
);

await trackToFirstStep('loaded');
clearInterval(sampler);
figure('workflows.rss_peak', mib(rssPeak), 'MiB');
await stamp.stop();
await sink.close();
await dns.close();
