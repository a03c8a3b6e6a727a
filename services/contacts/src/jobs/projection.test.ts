import { createLogger, openEmbeddedPlatform, type EmbeddedPlatform } from '@stamp/platform';

import { decide, queueBulk } from './decide.ts';
import { evolve, initialJob, type JobEvent, jobStreamId } from './events.ts';
import { contactJobsView, MAX_STORED_ERRORS, projectJobEvent } from './projection.ts';

describe('contactJobs projection', () => {
  let platform: EmbeddedPlatform;

  beforeAll(() => {
    platform = openEmbeddedPlatform({
      dataDir: ':memory:',
      logger: createLogger({ level: 'silent' }),
    });
  });
  afterAll(async () => {
    await platform.close();
  });

  /** Appends the events to a new job stream and projects each twice (a replay). */
  async function project(jobId: string, events: JobEvent[]): Promise<void> {
    await platform.store.append([
      {
        streamId: jobStreamId(jobId),
        expectedRevision: 'no_stream',
        events: events.map((event) => ({ ...event, metadata: { projectId: 'p1' } })),
      },
    ]);
    const recorded = await platform.store.readStream(jobStreamId(jobId));
    for (const event of recorded) {
      await projectJobEvent(platform.views, event);
      await projectJobEvent(platform.views, event);
    }
  }

  it('follows a job from QUEUED to COMPLETED; a replayed event changes nothing', async () => {
    const ids = Array.from({ length: 3 }, (_, index) => `c${index}`);
    const queued = queueBulk('bulk-unsubscribe', ids);
    let state = evolve(initialJob(), queued);
    const events: JobEvent[] = [queued];
    for (const slice of [
      { from: 0, to: 2, counts: { unsubscribed: 1, notFound: 1 } },
      { from: 2, to: 3, counts: { unchanged: 1 } },
    ]) {
      const errors = slice.from === 0 ? [{ id: 'c1', reason: 'Contact not found' }] : [];
      const decided = decide(state, { type: 'RecordRows', chunk: 0, ...slice, errors });
      state = decided.reduce(evolve, state);
      events.push(...decided);
    }
    await project('job-1', events);
    const view = await contactJobsView(platform.views).findOne({ _id: 'job-1' });
    expect(view).toMatchObject({
      projectId: 'p1',
      kind: 'bulk-unsubscribe',
      status: 'COMPLETED',
      total: 3,
      processed: 3,
      result: { unsubscribed: 1, unchanged: 1, notFound: 1, failed: 0 },
      errors: [{ id: 'c1', reason: 'Contact not found' }],
      errorCount: 1,
      failedReason: null,
      revision: 4,
    });
    expect(view?.startedAt).not.toBeNull();
    expect(view?.completedAt).not.toBeNull();
  });

  it(`keeps the first ${MAX_STORED_ERRORS} row errors and counts all of them`, async () => {
    const ids = Array.from({ length: 1000 }, (_, index) => `c${index}`);
    const queued = queueBulk('bulk-delete', ids);
    const errors = ids.map((id) => ({ id, reason: 'Contact not found' }));
    const state = evolve(initialJob(), queued);
    const half = decide(state, {
      type: 'RecordRows',
      chunk: 0,
      from: 0,
      to: 600,
      counts: { notFound: 600 },
      errors: errors.slice(0, 600),
    });
    const rest = decide(half.reduce(evolve, state), {
      type: 'RecordRows',
      chunk: 0,
      from: 600,
      to: 1000,
      counts: { notFound: 400 },
      errors: [...errors.slice(600), ...errors.slice(0, 200)],
    });
    await project('job-2', [queued, ...half, ...rest]);
    const view = await contactJobsView(platform.views).findOne({ _id: 'job-2' });
    expect(view?.errors).toHaveLength(MAX_STORED_ERRORS);
    expect(view?.errorCount).toBe(1200);
    expect(view?.result).toEqual({ deleted: 0, notFound: 1000, failed: 0 });
  });

  it('records the reason of a FAILED job', async () => {
    const queued = queueBulk('bulk-subscribe', ['c1']);
    const failed = decide(evolve(initialJob(), queued), { type: 'FailJob', reason: 'broken' });
    await project('job-3', [queued, ...failed]);
    expect(await contactJobsView(platform.views).findOne({ _id: 'job-3' })).toMatchObject({
      status: 'FAILED',
      failedReason: 'broken',
      processed: 0,
    });
  });
});
