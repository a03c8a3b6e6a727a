import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { startDnsServer, type TestDnsServer } from '@stamp/testkit/dns-server.ts';
import { parseMessage, startSmtpSink, type SmtpSink } from '@stamp/testkit/smtp-sink.ts';

// ajv is a dependency of the platform package, not of this dependency-free package.
import { Ajv, type ValidateFunction } from '../../platform/node_modules/ajv/dist/ajv.js';
import type { RecordedEvent } from '../../platform/src/event-store/event-store.ts';
import { evolve as evolveJob, initialJob } from '../../../services/contacts/src/jobs/events.ts';
import { decide as decideJob, queueBulk } from '../../../services/contacts/src/jobs/decide.ts';
import { initialProjectState } from '../../../services/accounts/src/projects/events.ts';
import {
  decideProtection,
  decideReinstate,
} from '../../../services/accounts/src/protection/decide.ts';
import { decideReport } from '../../../services/sending/src/inbound/decide.ts';
import { decideDisable } from '../../../services/activity/src/webhooks/events.ts';
import { deleteProject, resetProject } from '../../../services/accounts/src/projects/decide.ts';
import { applySubscription } from '../../../services/accounts/src/billing/decide.ts';
import {
  decideFailure,
  evolveEmail,
  initialEmailState,
} from '../../../services/sending/src/delivery/events.ts';
import type { Stamp } from '../../../services/lite/src/app.ts';
import { call, startTestStamp, TEST_KEYS } from '../../../services/lite/src/testing.ts';
import {
  DEAD_LETTER_SCHEMA,
  EVENT_ENVELOPE_SCHEMA,
  EVENT_SCHEMAS,
  TOPICS,
  envelopeSchemaOf,
  topicName,
} from './event-schemas.ts';

/** RFC 3339 date-time (section 5.6), as the draft-07 `date-time` format requires. */
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i;

/** A strict validator: unknown keywords, union types and loose types are compile errors. */
function newAjv(): Ajv {
  return new Ajv({
    strict: true,
    allErrors: true,
    formats: {
      'date-time': (value: string) => DATE_TIME.test(value) && !Number.isNaN(Date.parse(value)),
    },
  });
}

const ajv = newAjv();
const envelope = ajv.compile(EVENT_ENVELOPE_SCHEMA);
const byType = new Map<string, { envelope: ValidateFunction; data: ValidateFunction }>(
  Object.entries(EVENT_SCHEMAS).map(([type, schema]) => [
    type,
    { envelope: ajv.compile(envelopeSchemaOf(type)), data: ajv.compile(schema.data) },
  ]),
);

const errorsOf = (validate: ValidateFunction): string =>
  ajv.errorsText(validate.errors, { separator: '; ' });

/**
 * Why `event` is refused, or null when it is valid: the envelope schema, the envelope schema of
 * its type, and (unless erased) its data schema, as the relay checks it.
 */
function problemOf(event: unknown): string | null {
  const value = JSON.parse(JSON.stringify(event)) as RecordedEvent;
  const label = `${value.type} @${value.position}`;
  if (!envelope(value)) return `${label} envelope: ${errorsOf(envelope)}`;
  const validators = byType.get(value.type);
  if (validators === undefined) return `${label}: no schema for this event type`;
  if (!validators.envelope(value))
    return `${label} typed envelope: ${errorsOf(validators.envelope)}`;
  if (value.erased !== true && !validators.data(value.data)) {
    return `${label} data: ${errorsOf(validators.data)}`;
  }
  return null;
}

/** A valid envelope of `type` with `data`, for the negative cases. */
function sample(type: string, data: object, extra: object = {}): object {
  const category = EVENT_SCHEMAS[type]?.category ?? 'x';
  return {
    id: '0195f7a2-5b1c-7d3e-9f00-1234567890ab',
    streamId: `${category}-0195f7a2-5b1c-7d3e-9f00-1234567890ac`,
    revision: 0,
    position: 1,
    type,
    schemaVersion: 1,
    data,
    metadata: { projectId: 'p1', correlationId: 'c1' },
    createdAt: '2025-01-02T03:04:05.678Z',
    ...extra,
  };
}

describe('event schemas', () => {
  it('compile under ajv strict mode (draft-07)', () => {
    expect(Object.keys(EVENT_SCHEMAS).length).toBeGreaterThanOrEqual(35);
    expect(() => newAjv().compile(DEAD_LETTER_SCHEMA)).not.toThrow();
    for (const [type, schema] of Object.entries(EVENT_SCHEMAS)) {
      expect(schema.schemaVersion).toBeGreaterThanOrEqual(1);
      expect(schema.data.additionalProperties).toBe(true);
      expect(TOPICS.find((topic) => topic.category === schema.category)?.eventTypes).toContain(
        type,
      );
    }
  });

  it('give every stream category one topic, named <prefix><category>', () => {
    const categories = new Set(Object.values(EVENT_SCHEMAS).map((schema) => schema.category));
    expect(TOPICS.map((topic) => topic.category).sort()).toEqual([...categories].sort());
    expect(TOPICS.every((topic) => topic.eventTypes.length > 0)).toBe(true);
    expect(topicName('stamp.', 'contact')).toBe('stamp.contact');
  });

  it('refuse what is not a valid event', () => {
    const created = { email: 'a@example.org', subscribed: true, data: { plan: 'pro' } };
    expect(problemOf(sample('ContactCreated', created))).toBeNull();
    // Additive changes stay compatible.
    expect(problemOf(sample('ContactCreated', { ...created, newField: 1 }))).toBeNull();
    const refused: [string, object][] = [
      ['unknown envelope field', sample('ContactCreated', created, { extra: 1 })],
      ['missing data field', sample('ContactCreated', { subscribed: true, data: {} })],
      ['wrong data type', sample('ContactCreated', { ...created, subscribed: 'yes' })],
      ['object contact value', sample('ContactCreated', { ...created, data: { a: { b: 1 } } })],
      ['metadata not a string', sample('JobStarted', {}, { metadata: { projectId: 7 } })],
      ['bad traceparent', sample('JobStarted', {}, { metadata: { traceparent: 'x' } })],
      ['id not a UUID', sample('JobStarted', {}, { id: 'abc' })],
      ['position 0', sample('JobStarted', {}, { position: 0 })],
      ['createdAt not a date-time', sample('JobStarted', {}, { createdAt: 'yesterday' })],
      ['erased with data', sample('ContactCreated', created, { erased: true })],
      ['stream of another category', sample('JobStarted', {}, { streamId: 'contact-1' })],
      ['unknown type', sample('NoSuchThing', {})],
      [
        'bad enum',
        sample('EmailSent', {
          messageId: 'm',
          response: 'r',
          transport: 'x',
          sentAt: '2025-01-01T00:00:00Z',
        }),
      ],
      [
        'import job without columns',
        sample('JobQueued', {
          kind: 'import',
          total: 1,
          chunkSizes: [1],
          fileName: null,
          bytes: 3,
        }),
      ],
    ];
    for (const [reason, event] of refused) {
      expect([reason, typeof problemOf(event)]).toEqual([reason, 'string']);
    }
    expect(problemOf(sample('ContactCreated', {}, { erased: true }))).toBeNull();
  });

  it('cover every event type the services declare in their events files', () => {
    const declared = new Set<string>();
    const walk = (dir: string): void => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) walk(path);
        else if (entry.name === 'events.ts') {
          for (const match of readFileSync(path, 'utf8').matchAll(/type: '([A-Z][a-z]\w*)'/g)) {
            declared.add(match[1]!);
          }
        }
      }
    };
    const services = join(process.cwd(), 'services');
    for (const service of readdirSync(services)) {
      const src = join(services, service, 'src');
      try {
        walk(src);
      } catch {
        // a service without sources yet
      }
    }
    expect(declared.size).toBeGreaterThan(20);
    expect([...declared].filter((type) => EVENT_SCHEMAS[type] === undefined)).toEqual([]);
  });
});

describe('the events the services really append', () => {
  let dns: TestDnsServer;
  let sink: SmtpSink;
  let stamp: Stamp;
  let stopCapture: () => void = () => undefined;
  /** Every event as it was appended (before erasure or stream deletion), by position. */
  const captured = new Map<number, RecordedEvent>();
  const sk = TEST_KEYS.secretKey;

  beforeAll(async () => {
    dns = await startDnsServer({
      'acme.test': { MX: [{ exchange: 'mx.acme.test', priority: 10 }] },
    });
    // The first delivery over SMTP fails with 451: EmailDeferred, EmailRetryDue, then EmailSent.
    sink = await startSmtpSink({ failFirst: 1 });
    stamp = await startTestStamp({ STAMP_SMTP_URL: sink.url, STAMP_DNS_SERVERS: dns.address });
    const { store } = stamp.platform;
    stopCapture = store.onAppend((notice) => {
      // The embedded store reads synchronously: this sees the events before a later erasure.
      void store
        .readAll({ after: notice.first - 1, limit: notice.last - notice.first + 1 })
        .then((events) => {
          for (const event of events) captured.set(event.position, event);
        });
    });
  });

  afterAll(async () => {
    stopCapture();
    await stamp.close();
    await sink.close();
    await dns.close();
  });

  const api = async (method: string, path: string, body?: unknown): Promise<unknown> => {
    const response = await call(stamp.url, sk, method, path, body);
    if (response.status >= 300) {
      throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(response.body)}`);
    }
    return response.body;
  };

  async function until<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
    for (let attempt = 0; attempt < 400; attempt++) {
      const found = await probe();
      if (found !== undefined) return found;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new Error(`timed out waiting for ${what}`);
  }

  async function jobEnded(path: string): Promise<void> {
    await until(path, async () => {
      const job = (await api('GET', path)) as { status: string };
      return job.status === 'COMPLETED' || job.status === 'FAILED' ? job : undefined;
    });
  }

  it('validate against the envelope and their type schemas, for every main flow', async () => {
    // Contacts: create, update (email, data, subscription), track, delete tracked events.
    const contact = (await api('POST', '/contacts', {
      email: 'first@example.org',
      subscribed: true,
      data: { plan: 'pro', seats: 3, trial: false },
    })) as { id: string };
    await api('PATCH', `/contacts/${contact.id}`, {
      email: 'second@example.org',
      subscribed: false,
      data: { plan: 'team', trial: null },
    });
    await api('PATCH', `/contacts/${contact.id}`, { subscribed: true });
    await api('POST', '/v1/track', {
      event: 'signed-up',
      email: 'tracked@example.org',
      data: { source: 'ad', count: 2 },
    });
    await api('DELETE', '/events/signed-up');

    // Templates and a sandbox send (local outbox).
    const template = (await api('POST', '/templates', {
      name: 'Welcome',
      subject: 'Welcome {{ plan }}',
      body: '<p>Hello {{ plan }}, see <a href="https://docs.example/">the docs</a></p>',
      type: 'TRANSACTIONAL',
      from: 'hello@sandbox.stamp.localhost',
    })) as { id: string };
    await api('PATCH', `/templates/${template.id}`, { subject: 'Hi {{ plan }}', replyTo: null });
    const sandboxSend = (await api('POST', '/v1/send', {
      to: { name: 'Reader', email: 'reader@example.org' },
      template: template.id,
      data: { plan: 'pro' },
    })) as { data: { emails: { email: string }[] } };
    const sandboxEmail = sandboxSend.data.emails[0]!.email;
    const outboxed = await until('the sandbox email', async () => {
      const got = await call(stamp.url, sk, 'GET', `/outbox/${sandboxEmail}`);
      return got.status === 200 ? got : undefined;
    });
    // Its open pixel and tracked link, fetched: EmailOpened, EmailClicked.
    const parsed = await parseMessage((outboxed.body as { raw: string }).raw);
    const html = typeof parsed.html === 'string' ? parsed.html : '';
    for (const kind of ['o', 'c']) {
      const path = new RegExp(`/t/${kind}/[\\w.-]+`).exec(html)?.[0] ?? '/t/missing';
      expect((await fetch(stamp.url + path, { redirect: 'manual' })).status).toBeLessThan(400);
    }

    // Suppressions: a manual one stops a send, and is lifted again.
    await api('POST', '/suppressions', { email: 'blocked@example.org' });
    await api('POST', '/v1/send', {
      to: 'blocked@example.org',
      from: 'hello@sandbox.stamp.localhost',
      subject: 'Blocked',
      body: '<p>Not for you</p>',
    });
    await until('the suppressed email', async () =>
      [...captured.values()].some((event) => event.type === 'EmailSuppressed') ? true : undefined,
    );
    await api('DELETE', '/suppressions/blocked@example.org');

    // Domains: add, check (pending), verify, send over SMTP (deferred once), lose the key, remove.
    const domain = (await api('POST', '/domains', { domain: 'acme.test' })) as {
      id: string;
      records: { purpose: string; name: string; value: string }[];
    };
    await api('GET', `/domains/${domain.id}/verify`);
    const dkim = domain.records.find((record) => record.purpose === 'DKIM')!;
    dns.set(dkim.name, { TXT: [dkim.value] });
    expect(await api('GET', `/domains/${domain.id}/verify`)).toMatchObject({ status: 'VERIFIED' });
    await api('POST', '/v1/send', {
      to: 'smtp-reader@example.org',
      from: 'hello@acme.test',
      subject: 'Over SMTP',
      body: '<p>Hello</p>',
    });
    await sink.waitFor(1, 20_000);
    dns.set(dkim.name, { TXT: ['v=DKIM1; k=rsa; p=AAAA'] });
    expect(await api('GET', `/domains/${domain.id}/verify`)).toMatchObject({ status: 'FAILED' });
    await api('DELETE', `/domains/${domain.id}`);
    await api('DELETE', `/templates/${template.id}`);

    // Contact jobs: a tiny CSV import and a bulk unsubscribe.
    const form = new FormData();
    const csv = 'email,plan\nrow1@example.org,pro\nrow2@example.org,free\nnot-an-email,pro\n';
    form.append('file', new Blob([csv], { type: 'text/csv' }), 'contacts.csv');
    const imported = await fetch(`${stamp.url}/contacts/import`, {
      method: 'POST',
      headers: { authorization: `Bearer ${sk}` },
      body: form,
    });
    expect(imported.status).toBe(202);
    const { jobId } = (await imported.json()) as { jobId: string };
    await jobEnded(`/contacts/import/${jobId}`);
    const bulk = (await api('POST', '/contacts/bulk-unsubscribe', {
      contactIds: [contact.id, 'no-such-contact'],
    })) as { jobId: string };
    await jobEnded(`/contacts/bulk/${bulk.jobId}`);

    // Segments: dynamic (created, counted, changed), static (members in and out), deleted.
    const dynamic = (await api('POST', '/segments', {
      name: 'Pro',
      condition: {
        logic: 'AND',
        groups: [{ filters: [{ field: 'data.plan', operator: 'equals', value: 'pro' }] }],
      },
    })) as { id: string };
    await api('PATCH', `/segments/${dynamic.id}`, { name: 'Pros', description: null });
    const fixed = (await api('POST', '/segments', { name: 'Beta', type: 'STATIC' })) as {
      id: string;
    };
    await api('POST', `/segments/${fixed.id}/members`, { emails: ['row1@example.org'] });
    await api('DELETE', `/segments/${fixed.id}/members`, { emails: ['row1@example.org'] });
    await api('DELETE', `/segments/${dynamic.id}`);
    // A tracked segment: row1 enters when tracking starts, and exits when its plan changes.
    const tracked = (await api('POST', '/segments', {
      name: 'Pro tracked',
      trackMembership: true,
      condition: {
        logic: 'AND',
        groups: [{ filters: [{ field: 'data.plan', operator: 'equals', value: 'pro' }] }],
      },
    })) as { id: string };
    await api('POST', `/segments/${tracked.id}/compute`);
    await api('POST', '/contacts', { email: 'row1@example.org', data: { plan: 'free' } });
    await until('the exit of the tracked segment', async () => {
      const types = [...captured.values()].map((event) => event.type);
      return types.includes('SegmentExited') ? true : undefined;
    });

    // Campaigns: one edited, scheduled and sent to its audience; one scheduled, cancelled and
    // deleted after its duplicate was made.
    const campaignFields = {
      name: 'News',
      subject: 'News for {{ plan }}',
      body: '<p>Hello</p>',
      from: 'hello@sandbox.stamp.localhost',
      audienceType: 'ALL',
    };
    const sent = (await api('POST', '/campaigns', campaignFields)) as { data: { id: string } };
    await api('PUT', `/campaigns/${sent.data.id}`, { ...campaignFields, name: 'Newsletter' });
    const soon = new Date(Date.now() + 500).toISOString();
    await api('POST', `/campaigns/${sent.data.id}/send`, { scheduledFor: soon });
    await until('the campaign sent', async () => {
      const got = await call(stamp.url, sk, 'GET', `/campaigns/${sent.data.id}`);
      return (got.body as { status: string }).status === 'SENT' ? true : undefined;
    });
    const later = (await api('POST', '/campaigns', campaignFields)) as { data: { id: string } };
    const nextYear = new Date(Date.now() + 365 * 86_400_000).toISOString();
    await api('POST', `/campaigns/${later.data.id}/send`, { scheduledFor: nextYear });
    await api('POST', `/campaigns/${later.data.id}/cancel`);
    await api('POST', `/campaigns/${later.data.id}/duplicate`);
    await api('DELETE', `/campaigns/${later.data.id}`);

    // Workflows: edited graphs, and executions that exit after a delay, complete, fail on a
    // refused webhook target, and are cancelled while waiting.
    type Made = { id: string; steps: { id: string }[] };
    const flow = async (eventName: string, steps: object[]): Promise<Made> => {
      const workflow = (await api('POST', '/workflows', { name: eventName, eventName })) as Made;
      let from = workflow.steps[0]?.id ?? '';
      for (const step of steps) {
        const added = (await api('POST', `/workflows/${workflow.id}/steps`, step)) as {
          id: string;
        };
        await api('POST', `/workflows/${workflow.id}/transitions`, {
          fromStepId: from,
          toStepId: added.id,
        });
        from = added.id;
      }
      return workflow;
    };
    const delayed = await flow('wf-delay', [
      { type: 'DELAY', config: { amount: 0.01, unit: 'minutes' } },
      { type: 'EXIT', config: { reason: 'done' } },
    ]);
    const spare = (await api('POST', `/workflows/${delayed.id}/steps`, {
      type: 'UPDATE_CONTACT',
      config: {},
    })) as { id: string };
    await api('PATCH', `/workflows/${delayed.id}/steps/${spare.id}`, { name: 'Spare' });
    const graph = (await api('GET', `/workflows/${delayed.id}`)) as Made;
    const loose = (await api('POST', `/workflows/${delayed.id}/transitions`, {
      fromStepId: spare.id,
      toStepId: graph.steps[2]?.id,
    })) as { id: string };
    await api('DELETE', `/workflows/${delayed.id}/transitions/${loose.id}`);
    await api('DELETE', `/workflows/${delayed.id}/steps/${spare.id}`);
    const done = await flow('wf-done', [
      { type: 'UPDATE_CONTACT', config: { updates: { flow: 'yes' } } },
    ]);
    const failing = await flow('wf-fail', [
      { type: 'WEBHOOK', config: { url: 'http://127.0.0.1:9/hook' } },
    ]);
    const waiting = await flow('wf-wait', [
      { type: 'WAIT_FOR_EVENT', config: { eventName: 'never' } },
    ]);
    const waitStep = ((await api('GET', `/workflows/${waiting.id}`)) as Made).steps[1]?.id;
    const after = (await api('POST', `/workflows/${waiting.id}/steps`, {
      type: 'EXIT',
      config: {},
    })) as { id: string };
    await api('POST', `/workflows/${waiting.id}/transitions`, {
      fromStepId: waitStep,
      toStepId: after.id,
      waitOutcome: 'EVENT',
    });
    for (const workflow of [delayed, done, failing, waiting]) {
      await api('PATCH', `/workflows/${workflow.id}`, { enabled: true });
    }
    for (const name of ['wf-delay', 'wf-done', 'wf-fail', 'wf-wait']) {
      await api('POST', '/v1/track', { event: name, email: 'flows@example.org' });
    }
    await until('the workflow executions', async () => {
      const types = [...captured.values()].map((event) => event.type);
      const wanted = [
        'ExecutionExited',
        'ExecutionCompleted',
        'ExecutionFailed',
        'ExecutionWaiting',
      ];
      return wanted.every((type) => types.includes(type)) ? true : undefined;
    });
    await api('POST', `/workflows/${waiting.id}/executions/cancel-all`);
    await api('DELETE', `/workflows/${waiting.id}`);

    // A user signs up (the first: owner of the default project).
    const signup = await call(stamp.url, undefined, 'POST', '/auth/signup', {
      email: 'owner@example.org',
      password: 'correct horse battery',
    });
    expect(signup.status).toBe(201);
    // A second user joins the default project, and gets another role.
    const joined = await call(stamp.url, undefined, 'POST', '/auth/signup', {
      email: 'second@example.org',
      password: 'correct horse battery',
    });
    const secondId = (joined.body as { id: string }).id;
    const members = `/projects/${stamp.bootstrap.projectId}/members`;
    await api('POST', members, { email: 'second@example.org', role: 'MEMBER' });
    await api('PATCH', `${members}/${secondId}`, { role: 'ADMIN' });
    await api('PATCH', `/users/@me/projects/${stamp.bootstrap.projectId}`, {
      name: 'Renamed',
      tracking: 'ENABLED',
    });
    // Billing caps set by hand (high enough for every send of this flow).
    await api('PUT', `/users/@me/projects/${stamp.bootstrap.projectId}/billing-limits`, {
      transactional: 1_000_000,
      inbound: null,
    });

    // Webhook endpoints: created, changed and deleted (the disabling is built below).
    const hook = (await api('POST', '/webhook-endpoints', {
      url: 'https://hooks.example.com/in',
      eventTypes: ['campaign.sent'],
    })) as { id: string };
    await api('PATCH', `/webhook-endpoints/${hook.id}`, { description: 'CRM' });
    await api('DELETE', `/webhook-endpoints/${hook.id}`);

    // Deleting a contact erases its personal data in the log.
    await api('DELETE', `/contacts/${contact.id}`);
    await until('the SMTP delivery outcome', async () => {
      const types = [...captured.values()].map((event) => event.type);
      return types.includes('EmailSent') && types.includes('EmailRetryDue') ? true : undefined;
    });

    const log = await stamp.platform.store.readAll({ after: 0, limit: 100_000 });
    expect(log.some((event) => event.erased === true)).toBe(true);
    expect(captured.size).toBeGreaterThan(30);
    const problems = new Set(
      [...captured.values(), ...log].map(problemOf).filter((problem) => problem !== null),
    );
    expect([...problems]).toEqual([]);

    // Every type seen has an entry; every entry was seen here or is built below.
    const seen = new Set([...captured.values(), ...log].map((event) => event.type));
    expect([...seen].filter((type) => EVENT_SCHEMAS[type] === undefined)).toEqual([]);
    const built = builtEvents();
    for (const { event } of built) expect(problemOf(event)).toBeNull();
    const covered = new Set([...seen, ...built.map((event) => event.type)]);
    expect(Object.keys(EVENT_SCHEMAS).filter((type) => !covered.has(type))).toEqual([]);
  });
});

/**
 * Events the flows above cannot reach in a test's time, built by the services' own deciders:
 * a permanent delivery failure (after 8 attempts in production), a hard bounce, a complaint, a
 * project's suspension and reinstatement, a failed job, a webhook endpoint disabled after days
 * of failure, a deleted project, the uses of emailed account links (and an account email
 * that failed), an identity linked by an OpenID Connect login, and a subscription reported by
 * the payment provider.
 */
function builtEvents(): { type: string; event: object }[] {
  const failed = decideFailure(
    initialEmailState(),
    { message: '550 mailbox unavailable', transient: false },
    { baseMs: 1000, maxAttempts: 8 },
    new Date(),
  );
  const bounced = decideFailure(
    evolveEmail(initialEmailState(), {
      type: 'EmailQueued',
      data: {
        emailId: 'e1',
        contactId: 'c1',
        to: { email: 'gone@example.org' },
        from: { email: 'news@example.com' },
        subject: 'Hi',
        html: '<p>Hi</p>',
        headers: {},
        attachments: [],
        sandbox: false,
      },
    }),
    { message: '550 5.1.1 no such user', transient: false, responseCode: 550 },
    { baseMs: 1000, maxAttempts: 8 },
    new Date(),
  );
  const complained = decideReport(
    { kind: 'complaint', feedbackType: 'abuse', userAgent: 'ExampleFBL/1.0' },
    { recipient: 'annoyed@example.org', bounced: false, complained: false },
    new Date(),
  ) ?? { type: 'none', data: {} };
  const project = { ...initialProjectState, exists: true, name: 'P', ownerId: 'u1' };
  const [suspended] = decideProtection(
    project,
    { sends: 600, bounces: 90, complaints: 0 },
    new Date(),
  );
  const [reinstated] = decideReinstate(
    { ...project, suspension: suspended?.type === 'ProjectSuspended' ? suspended.data : null },
    new Date(),
  );
  const queued = queueBulk('bulk-delete', ['c1']);
  const [jobFailed] = decideJob(evolveJob(initialJob(), queued), {
    type: 'FailJob',
    reason: 'store unavailable',
  });
  const [deleted] = deleteProject({ ...initialProjectState, exists: true }, new Date());
  const [reset] = resetProject({ ...initialProjectState, exists: true }, new Date());
  const [subscribed] = applySubscription(
    { ...initialProjectState, exists: true },
    {
      provider: 'stripe',
      eventId: 'evt_1',
      eventType: 'customer.subscription.updated',
      eventCreatedAt: new Date().toISOString(),
      customerId: 'cus_1',
      subscriptionId: 'sub_1',
      priceId: 'price_pro',
      status: 'active',
    },
    { price_pro: { transactional: 5, campaigns: null, workflows: 0, inbound: null } },
    new Date(),
  );
  const [disabled] = decideDisable(
    { exists: true, deleted: false, projectId: 'p1', enabled: true },
    new Date().toISOString(),
    'every delivery failed for 5 days',
  );
  const now = new Date().toISOString();
  return [
    { type: disabled!.type, event: sample(disabled!.type, disabled!.data) },
    { type: deleted!.type, event: sample(deleted!.type, deleted!.data) },
    { type: reset!.type, event: sample(reset!.type, reset!.data) },
    { type: subscribed!.type, event: sample(subscribed!.type, subscribed!.data) },
    {
      type: 'UserEmailVerified',
      event: sample('UserEmailVerified', { email: 'owner@example.org' }),
    },
    {
      type: 'UserPasswordChanged',
      event: sample('UserPasswordChanged', { passwordHash: 'v1.aaaa.bbbb.cccc' }),
    },
    {
      type: 'UserIdentityLinked',
      event: sample('UserIdentityLinked', {
        provider: 'google',
        issuer: 'https://accounts.google.com',
        subject: '1234567890',
        email: 'owner@example.org',
      }),
    },
    { type: 'AccountTokenUsed', event: sample('AccountTokenUsed', { purpose: 'RESET_PASSWORD' }) },
    {
      type: 'AccountEmailFailed',
      event: sample('AccountEmailFailed', { error: '550 no such user', failedAt: now }),
    },
    {
      type: 'SegmentMembershipDue',
      event: sample('SegmentMembershipDue', { segmentId: 's1', contactId: 'c1' }),
    },
    { type: failed.type, event: sample(failed.type, failed.data) },
    { type: bounced.type, event: sample(bounced.type, bounced.data) },
    { type: complained.type, event: sample(complained.type, complained.data) },
    {
      type: 'EmailReceived',
      event: sample('EmailReceived', {
        inboundEmailId: 'i1',
        contactId: 'c1',
        from: { email: 'customer@example.org' },
        to: ['support@example.com'],
        subject: 'Hello',
        size: 42,
        raw: 'Subject: Hello\r\n\r\nHi',
        receivedAt: new Date().toISOString(),
      }),
    },
    { type: suspended!.type, event: sample(suspended!.type, suspended!.data) },
    { type: reinstated!.type, event: sample(reinstated!.type, reinstated!.data) },
    { type: jobFailed!.type, event: sample(jobFailed!.type, jobFailed!.data) },
  ];
}
