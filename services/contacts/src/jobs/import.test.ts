import { randomBytes } from 'node:crypto';
import { openAsBlob, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { awaitViewsOf, type ServiceModule } from '@stamp/http-kit';
import {
  createLogger,
  DnsResolver,
  type EmbeddedPlatform,
  openEmbeddedPlatform,
  Secrets,
} from '@stamp/platform';
import { serveRouter, type ServedRouter } from '@stamp/testkit/http.ts';
import { temporaryDirectory } from '@stamp/testkit/temporary.ts';

import { ContactCommands } from '../contacts/commands.ts';
import { createContactsService } from '../index.ts';
import { decide, queueImport } from './decide.ts';
import {
  evolve,
  importRowsStreamId,
  initialJob,
  type ImportRow,
  type JobEvent,
  jobStreamId,
} from './events.ts';
import { sampleContactsCsv } from './sample-csv.ts';

interface Job {
  id: string;
  status: string;
  progress: number;
  processed: number;
  total: number;
  result: Record<string, number>;
  errors: { line?: number; email?: string; reason: string }[];
  errorCount: number;
  failedReason: string | null;
}
interface Contact {
  id: string;
  email: string;
  subscribed: boolean;
  data: Record<string, unknown>;
}

const PROJECT = 'project-import';

/** The contacts service on an embedded platform in `dataDir`, served over loopback HTTP. */
async function startOn(dataDir: string): Promise<{
  platform: EmbeddedPlatform;
  service: ReturnType<typeof createContactsService>;
  api: ServedRouter;
  close(): Promise<void>;
}> {
  const logger = createLogger({ level: 'silent' });
  const platform = openEmbeddedPlatform({ dataDir, logger });
  const modules: ServiceModule[] = [];
  const service = createContactsService({
    store: platform.store,
    bus: platform.bus,
    views: platform.views,
    logger,
    awaitViews: awaitViewsOf(modules),
    resolver: new DnsResolver(),
    secrets: new Secrets(randomBytes(32)),
  });
  modules.push(service);
  await service.start();
  const api = await serveRouter(service.router, { projectId: PROJECT, keyKind: 'secret' });
  return {
    platform,
    service,
    api,
    async close() {
      await api.close();
      await service.stop();
      await platform.close();
    },
  };
}

/** Uploads the file at `path` as the multipart field `file`. */
async function uploadFile(api: ServedRouter, path: string): Promise<{ status: number; body: Job }> {
  const form = new FormData();
  form.append('file', await openAsBlob(path, { type: 'text/csv' }), 'contacts.csv');
  const response = await fetch(`${api.url}/contacts/import`, { method: 'POST', body: form });
  return { status: response.status, body: (await response.json()) as Job };
}

/**
 * Polls a job until it ends (COMPLETED or FAILED). A job written before the platform started is
 * shown once the views have caught up with the log: 404 is awaited for 5 s at most.
 */
async function finished(api: ServedRouter, jobId: string): Promise<Job> {
  const shownBy = Date.now() + 5000;
  for (;;) {
    const response = await api.request('GET', `/contacts/import/${jobId}`);
    const job = response.body as Job;
    if (response.status === 404 && Date.now() < shownBy) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      continue;
    }
    if (response.status !== 200) throw new Error(JSON.stringify(job));
    if (job.status === 'COMPLETED' || job.status === 'FAILED') return job;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function contactByEmail(api: ServedRouter, email: string): Promise<Contact | undefined> {
  const page = await api.request('GET', `/contacts?search=${encodeURIComponent(email)}`);
  return (page.body as { data: Contact[] }).data.find((contact) => contact.email === email);
}

const dataDir = (): string => temporaryDirectory('stamp-import-');

describe('CSV import of a real file', () => {
  it('imports a 5 MB file of 100,000 rows with the expected counts, errors and contacts', async () => {
    const sample = sampleContactsCsv();
    expect(sample.content.length).toBeGreaterThan(5_000_000);
    expect(sample.content.length).toBeLessThanOrEqual(5_242_880);
    const path = join(dataDir(), 'contacts.csv');
    writeFileSync(path, sample.content);
    const stamp = await startOn(':memory:');
    try {
      const queued = await uploadFile(stamp.api, path);
      expect(queued.status).toBe(202);
      expect(queued.body).toMatchObject({ status: 'QUEUED', total: 100_000 });
      const job = await finished(stamp.api, queued.body.id);
      expect(job).toMatchObject({
        status: 'COMPLETED',
        progress: 100,
        processed: 100_000,
        total: 100_000,
        result: sample.expected,
        errorCount: sample.errors.length,
      });
      expect(job.errors.map((error) => error.line)).toEqual(
        sample.errors.map((error) => error.line),
      );
      job.errors.forEach((error, index) => {
        expect(error.reason).toContain(sample.errors[index]?.reason);
        expect(error.email).toBe(sample.errors[index]?.email);
      });
      for (const expected of sample.samples) {
        expect(await contactByEmail(stamp.api, expected.email)).toMatchObject({
          subscribed: expected.subscribed,
          data: expected.data,
        });
      }
      // the repeated email (row 60,000) updated the contact of row 100
      expect(await contactByEmail(stamp.api, 'p100@example.io')).toMatchObject({
        subscribed: true,
        data: { name: 'Zoë Keller', company: 'Widgets "R" Us', notes: 'tier 60000' },
      });
      const all = await stamp.api.request('GET', '/contacts?limit=1');
      expect((all.body as { total: number }).total).toBe(sample.expected.created);
    } finally {
      await stamp.close();
    }
  }, 600_000);

  it('refuses a file over 5 MB with 413 PAYLOAD_TOO_LARGE and queues nothing', async () => {
    const path = join(dataDir(), 'big.csv');
    const big = Buffer.alloc(5_242_881, 'a');
    big.write('email,notes\r\nbig@example.io,');
    writeFileSync(path, big);
    const stamp = await startOn(':memory:');
    try {
      const refused = await uploadFile(stamp.api, path);
      expect(refused.status).toBe(413);
      expect(refused.body).toMatchObject({
        success: false,
        error: { code: 'PAYLOAD_TOO_LARGE', statusCode: 413 },
      });
      expect(await stamp.platform.store.readAll({ after: 0, categories: ['contactJob'] })).toEqual(
        [],
      );
    } finally {
      await stamp.close();
    }
  });

  it('finishes an import after a restart on the same data folder, with exact counts', async () => {
    const folder = dataDir();
    const sample = sampleContactsCsv({ rows: 20_000, domain: 'restart.example.io' });
    const path = join(folder, 'contacts.csv');
    writeFileSync(path, sample.content);
    const first = await startOn(folder);
    // Close at the third job-stream append after the upload was answered: at most 3 of the 20
    // chunks are recorded, rows may be in flight.
    let appends = 0;
    let closed: Promise<void> | undefined;
    let unsubscribe = (): void => undefined;
    const queued = await uploadFile(first.api, path);
    expect(queued.status).toBe(202);
    unsubscribe = first.platform.store.onAppend((notice) => {
      if (!notice.categories.has('contactJob') || ++appends !== 3) return;
      unsubscribe();
      // The worker stops taking rows at once; then the HTTP server and the database close.
      closed = first.service.stop().then(() => first.close());
    });
    while (closed === undefined) await new Promise((resolve) => setTimeout(resolve, 5));
    await closed;

    const second = await startOn(folder);
    try {
      const before = await second.platform.store.readStream(jobStreamId(queued.body.id));
      expect(before.map((event) => event.type)).not.toContain('JobCompleted');
      const job = await finished(second.api, queued.body.id);
      expect(job).toMatchObject({
        status: 'COMPLETED',
        processed: 20_000,
        result: sample.expected,
        errorCount: sample.errors.length,
      });
      expect(await contactByEmail(second.api, 'p5@restart.example.io')).toMatchObject({
        data: sample.samples[2]?.data ?? {},
      });
    } finally {
      await second.close();
    }
  }, 600_000);

  it('resumes after a crash: recorded rows are skipped, unrecorded rows run again', async () => {
    const folder = dataDir();
    const jobId = '0190b5d2-0000-7000-8000-00000000c0de';
    const rows: ImportRow[] = Array.from({ length: 30 }, (_, index) => ({
      line: index + 2,
      values: [`crash${index}@example.io`, `name ${index}`],
    }));
    // The log as a kill -9 leaves it: chunk 0 recorded, chunk 1 half written but not recorded.
    {
      const logger = createLogger({ level: 'silent' });
      const platform = openEmbeddedPlatform({ dataDir: folder, logger });
      const { queued, chunks } = queueImport(
        { columns: ['email', 'name'], rows, fileName: 'crash.csv', bytes: 600 },
        10,
      );
      const metadata = { projectId: PROJECT };
      const state = evolve(initialJob(), queued);
      const progress: JobEvent[] = decide(state, {
        type: 'RecordRows',
        chunk: 0,
        from: 0,
        to: 10,
        counts: { created: 10 },
        errors: [],
      });
      await platform.store.append([
        {
          streamId: jobStreamId(jobId),
          expectedRevision: 'no_stream',
          events: [queued, ...progress].map((event) => ({ ...event, metadata })),
        },
        {
          streamId: importRowsStreamId(jobId),
          expectedRevision: 'no_stream',
          events: chunks.map((chunk) => ({ ...chunk, metadata })),
        },
      ]);
      const commands = new ContactCommands({ store: platform.store, logger });
      for (let index = 10; index < 15; index++) {
        await commands.upsertRecipient({
          projectId: PROJECT,
          email: `crash${index}@example.io`,
          data: { name: `name ${index}` },
          defaultSubscribed: true,
          correlationId: jobId,
        });
      }
      await platform.close();
    }

    const stamp = await startOn(folder);
    try {
      const job = await finished(stamp.api, jobId);
      expect(job).toMatchObject({
        status: 'COMPLETED',
        processed: 30,
        result: { created: 25, updated: 0, unchanged: 5, failed: 0 },
      });
      expect(await contactByEmail(stamp.api, 'crash3@example.io')).toBeUndefined();
      expect(await contactByEmail(stamp.api, 'crash12@example.io')).toMatchObject({
        data: { name: 'name 12' },
      });
      expect(await contactByEmail(stamp.api, 'crash29@example.io')).toMatchObject({
        subscribed: true,
        data: { name: 'name 29' },
      });
    } finally {
      await stamp.close();
    }
  });
});
