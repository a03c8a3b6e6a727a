import type { ServedRouter } from '@stamp/testkit/http.ts';

import { type ContactsHarness, startContacts } from '../testing.ts';
import { queueImport } from './decide.ts';
import { importRowsStreamId, jobStreamId } from './events.ts';
import { sampleContactsCsv } from './sample-csv.ts';

interface Job {
  jobId?: string;
  id: string;
  type: string;
  status: string;
  progress: number;
  processed: number;
  total: number;
  result: Record<string, number>;
  errors: { line?: number; email?: string; id?: string; reason: string }[];
  errorCount: number;
  failedReason: string | null;
  fileName?: string | null;
  message?: string;
}
interface Contact {
  id: string;
  email: string;
  subscribed: boolean;
  data: Record<string, unknown>;
}
interface ErrorBody {
  error: { code: string; statusCode: number; errors?: { field: string; code: string }[] };
}

/** POSTs `parts` (file parts as [name, content, fileName], text parts as [name, value]). */
async function postForm(
  url: string,
  parts: ([string, string | Buffer, string] | [string, string])[],
): Promise<{ status: number; body: unknown }> {
  const form = new FormData();
  for (const part of parts) {
    if (part.length === 3) form.append(part[0], new Blob([part[1]], { type: 'text/csv' }), part[2]);
    else form.append(part[0], part[1]);
  }
  const response = await fetch(`${url}/contacts/import`, { method: 'POST', body: form });
  const body: unknown = await response.json();
  return { status: response.status, body };
}

const upload = (api: ServedRouter, content: string | Buffer) =>
  postForm(api.url, [['file', content, 'contacts.csv']]);

/** Polls a job until it ends (COMPLETED or FAILED). */
async function finished(api: ServedRouter, path: string): Promise<Job> {
  for (let attempt = 0; attempt < 6000; attempt++) {
    const response = await api.request('GET', path);
    const job = response.body as Job;
    if (response.status !== 200) throw new Error(`GET ${path}: ${JSON.stringify(job)}`);
    if (job.status === 'COMPLETED' || job.status === 'FAILED') return job;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`${path} did not end`);
}

async function contactByEmail(api: ServedRouter, email: string): Promise<Contact | undefined> {
  const page = await api.request('GET', `/contacts?search=${encodeURIComponent(email)}`);
  return (page.body as { data: Contact[] }).data.find((contact) => contact.email === email);
}

describe('contact jobs API', () => {
  let harness: ContactsHarness;
  let api: ServedRouter;
  let other: ServedRouter;

  beforeAll(async () => {
    harness = await startContacts();
    api = await harness.as('project-a');
    other = await harness.as('project-b');
  });
  afterAll(async () => {
    await harness.close();
  });

  it('imports a CSV: creates, updates and leaves contacts, and reports bad rows by line', async () => {
    await api.request('POST', '/contacts', { email: 'kept@example.io', data: { plan: 'basic' } });
    await api.request('POST', '/contacts', { email: 'changed@example.io', data: { plan: 'free' } });
    const csv = [
      'email,First Name,plan,Subscribed',
      'new@example.io,"Zoë, the ""great""",pro,false',
      'changed@example.io,José,pro,',
      'kept@example.io,,basic,',
      'not-an-email,Ann,pro,true',
      'bad@example.io,Bob,pro,maybe',
      'short@example.io,Cy',
      'NEW@example.io,,team,',
    ].join('\r\n');
    const queued = await postForm(api.url, [['file', csv, 'Zoë contacts.csv']]);
    expect(queued.status).toBe(202);
    const accepted = queued.body as Job;
    expect(accepted).toMatchObject({
      status: 'QUEUED',
      type: 'import',
      total: 7,
      processed: 0,
      progress: 0,
      fileName: 'Zoë contacts.csv',
      result: { created: 0, updated: 0, unchanged: 0, failed: 0 },
      errors: [],
    });
    expect(accepted.jobId).toBe(accepted.id);

    const job = await finished(api, `/contacts/import/${accepted.id}`);
    expect(job).toMatchObject({
      status: 'COMPLETED',
      progress: 100,
      processed: 7,
      total: 7,
      result: { created: 1, updated: 2, unchanged: 1, failed: 3 },
      errorCount: 3,
      failedReason: null,
    });
    expect(job.errors).toEqual([
      { line: 5, email: 'not-an-email', reason: 'Invalid email address' },
      {
        line: 6,
        email: 'bad@example.io',
        reason: 'Invalid subscribed value "maybe" (use true or false)',
      },
      { line: 7, reason: 'Expected 4 columns, found 2' },
    ]);

    const created = await contactByEmail(api, 'new@example.io');
    expect(created).toMatchObject({
      subscribed: false,
      data: { 'First Name': 'Zoë, the "great"', plan: 'team' },
    });
    expect(await contactByEmail(api, 'changed@example.io')).toMatchObject({
      subscribed: true,
      data: { plan: 'pro', 'First Name': 'José' },
    });
    expect(await contactByEmail(api, 'bad@example.io')).toBeUndefined();
    const events = await harness.platform.store.readStream(`contact-${created?.id ?? ''}`);
    expect(events[0]?.metadata).toMatchObject({ projectId: 'project-a', correlationId: job.id });
    // The uploaded rows (personal data) left the log with the end of the job.
    expect(await harness.platform.store.readStream(importRowsStreamId(job.id))).toEqual([]);
  });

  it('refuses bad uploads: 400 not multipart, 422 no file or bad header, 413 over 5 MB', async () => {
    const json = await api.request('POST', '/contacts/import', { email: 'a@example.io' });
    expect([json.status, (json.body as ErrorBody).error.code]).toEqual([400, 'BAD_REQUEST']);

    const noFile = await postForm(api.url, [['note', 'hello']]);
    expect(noFile.status).toBe(422);
    expect((noFile.body as ErrorBody).error.errors?.[0]).toMatchObject({
      field: 'file',
      code: 'required',
    });

    for (const content of ['', 'name,plan\nAnn,pro\n', 'email,plan\n']) {
      const refused = await upload(api, content);
      expect([refused.status, (refused.body as ErrorBody).error.code]).toEqual([
        422,
        'VALIDATION_ERROR',
      ]);
    }

    const two = await postForm(api.url, [
      ['file', 'email\na@example.io\n', 'a.csv'],
      ['more', 'email\nb@example.io\n', 'b.csv'],
    ]);
    expect(two.status).toBe(422);

    const big = Buffer.alloc(5 * 1024 * 1024 + 1, 'a');
    big.write('email,notes\nbig@example.io,');
    const tooLarge = await upload(api, big);
    expect([tooLarge.status, (tooLarge.body as ErrorBody).error.code]).toEqual([
      413,
      'PAYLOAD_TOO_LARGE',
    ]);
    expect(await contactByEmail(api, 'big@example.io')).toBeUndefined();

    const malformed = await fetch(`${api.url}/contacts/import`, {
      method: 'POST',
      headers: { 'content-type': 'multipart/form-data; boundary=xyz' },
      body: '--xyz\r\nContent-Disposition: form-data; name="file"; filename="a.csv"\r\n\r\nemail',
    });
    expect(malformed.status).toBe(400);
  });

  it('answers 404 RESOURCE_NOT_FOUND for unknown jobs, other projects and the other family', async () => {
    const queued = (await upload(api, 'email\nfamily@example.io\n')).body as Job;
    const bulk = (await api.request('POST', '/contacts/bulk-delete', { contactIds: ['x'] }))
      .body as Job;
    for (const [router, path] of [
      [other, `/contacts/import/${queued.id}`],
      [api, `/contacts/bulk/${queued.id}`],
      [api, `/contacts/import/${bulk.id}`],
      [api, '/contacts/import/0190b5d2-0000-7000-8000-000000000000'],
      [api, '/contacts/bulk/unknown'],
    ] as const) {
      const response = await router.request('GET', path);
      expect([response.status, (response.body as ErrorBody).error.code]).toEqual([
        404,
        'RESOURCE_NOT_FOUND',
      ]);
    }
    expect((await api.request('GET', `/contacts/bulk/${bulk.id}`)).status).toBe(200);
  });

  it('bulk-unsubscribes, bulk-subscribes and bulk-deletes by id, emitting the contact events', async () => {
    const ids: string[] = [];
    for (const email of ['b1@example.io', 'b2@example.io', 'b3@example.io']) {
      ids.push(((await api.request('POST', '/contacts', { email })).body as Contact).id);
    }
    const [a = '', b = '', c = ''] = ids;
    const unknown = '0190b5d2-0000-7000-8000-00000000dead';
    const queued = await api.request('POST', '/contacts/bulk-unsubscribe', {
      contactIds: [a, b, a, unknown],
    });
    expect(queued.status).toBe(202);
    expect(queued.body).toMatchObject({ status: 'QUEUED', type: 'bulk-unsubscribe', total: 3 });
    const unsubscribed = await finished(api, `/contacts/bulk/${(queued.body as Job).id}`);
    expect(unsubscribed).toMatchObject({
      status: 'COMPLETED',
      processed: 3,
      result: { unsubscribed: 2, unchanged: 0, notFound: 1, failed: 0 },
      errors: [{ id: unknown, reason: 'Contact not found' }],
    });
    expect(unsubscribed.fileName).toBeUndefined();
    expect(((await api.request('GET', `/contacts/${a}`)).body as Contact).subscribed).toBe(false);
    expect(((await api.request('GET', `/contacts/${c}`)).body as Contact).subscribed).toBe(true);
    const typesOf = async (id: string) =>
      (await harness.platform.store.readStream(`contact-${id}`)).map((event) => event.type);
    expect(await typesOf(a)).toContain('ContactUnsubscribed');

    // someone else's contact is not found for this project
    const foreign = (await other.request('POST', '/contacts', { email: 'f@example.io' }))
      .body as Contact;
    const subscribe = await api.request('POST', '/contacts/bulk-subscribe', {
      mode: 'ids',
      contactIds: [a, c, foreign.id],
    });
    expect(await finished(api, `/contacts/bulk/${(subscribe.body as Job).id}`)).toMatchObject({
      result: { subscribed: 1, unchanged: 1, notFound: 1, failed: 0 },
    });
    expect(await typesOf(a)).toContain('ContactSubscribed');

    const deletion = await api.request('POST', '/contacts/bulk-delete', { contactIds: [a, b] });
    expect(await finished(api, `/contacts/bulk/${(deletion.body as Job).id}`)).toMatchObject({
      result: { deleted: 2, notFound: 0, failed: 0 },
    });
    expect((await api.request('GET', `/contacts/${a}`)).status).toBe(404);
    expect((await other.request('GET', `/contacts/${foreign.id}`)).status).toBe(200);
  });

  it('refuses bulk bodies without 1 to 1,000 ids with 422', async () => {
    const many = Array.from({ length: 1001 }, (_, index) => `id-${index}`);
    for (const body of [
      { contactIds: many },
      { contactIds: [] },
      {},
      { contactIds: [1, 2] },
      { contactIds: [''] },
      { mode: 'query', contactIds: ['x'] },
    ]) {
      const response = await api.request('POST', '/contacts/bulk-unsubscribe', body);
      expect([response.status, (response.body as ErrorBody).error.code]).toEqual([
        422,
        'VALIDATION_ERROR',
      ]);
    }
    const tooMany = await api.request('POST', '/contacts/bulk-delete', { contactIds: many });
    expect((tooMany.body as ErrorBody).error.errors?.[0]).toMatchObject({
      field: 'contactIds',
      code: 'too_big',
    });
    const exactly = await api.request('POST', '/contacts/bulk-delete', {
      contactIds: many.slice(0, 1000),
    });
    expect(exactly.status).toBe(202);
  });

  it('marks a job FAILED with its reason when its rows cannot be read', async () => {
    const jobId = '0190b5d2-0000-7000-8000-00000000beef';
    const { queued } = queueImport({
      columns: ['email'],
      rows: [{ line: 2, values: ['x@example.io'] }],
      fileName: null,
      bytes: 10,
    });
    const metadata = { projectId: 'project-a' };
    await harness.platform.store.append([
      {
        streamId: jobStreamId(jobId),
        expectedRevision: 'no_stream',
        events: [{ ...queued, metadata }],
      },
      {
        streamId: importRowsStreamId(jobId),
        expectedRevision: 'no_stream',
        events: [{ type: 'ImportChunkQueued', data: { chunk: 0, rows: 'garbage' }, metadata }],
      },
    ]);
    // Appended past the API: the jobs view shows the job once its projection reached it.
    const position = await harness.platform.store.headPosition();
    for (const projection of harness.service.projections())
      await projection.waitFor(position, 5000);
    const job = await finished(api, `/contacts/import/${jobId}`);
    expect(job).toMatchObject({ status: 'FAILED', processed: 0, total: 1 });
    expect(job.failedReason).toContain('could not be read');
    expect(await contactByEmail(api, 'x@example.io')).toBeUndefined();
  });

  it('resumes an import interrupted by a stop of the service, with exact counts', async () => {
    const sample = sampleContactsCsv({ rows: 5000, domain: 'resume.example.io' });
    // Stop the service at the second job-stream append after the upload was answered (JobStarted
    // or the first rows recorded): at most 2 of the 5 chunks are done, rows may be in flight.
    let appends = 0;
    let stopped: Promise<void> | undefined;
    let unsubscribe = (): void => undefined;
    const queued = (await upload(api, sample.content)).body as Job;
    unsubscribe = harness.platform.store.onAppend((notice) => {
      if (!notice.categories.has('contactJob') || ++appends !== 2) return;
      unsubscribe();
      stopped = harness.service.stop();
    });
    while (stopped === undefined) await new Promise((resolve) => setTimeout(resolve, 5));
    await stopped;
    const before = await harness.platform.store.readStream(jobStreamId(queued.id));
    expect(before.map((event) => event.type)).not.toContain('JobCompleted');

    await harness.service.start();
    const job = await finished(api, `/contacts/import/${queued.id}`);
    expect(job).toMatchObject({ status: 'COMPLETED', processed: 5000, result: sample.expected });
    expect(job.errors.map((error) => error.line)).toEqual(sample.errors.map((error) => error.line));
    const contact = await contactByEmail(api, 'p4@resume.example.io');
    expect(contact?.data).toMatchObject(sample.samples[1]?.data ?? {});
  });
});
