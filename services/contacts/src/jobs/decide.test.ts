import { decide, type JobCommand, queueBulk, queueImport } from './decide.ts';
import { evolve, initialJob, type JobEvent, type JobState } from './events.ts';

const given = (events: JobEvent[]): JobState => events.reduce(evolve, initialJob());

const rows = Array.from({ length: 5 }, (_, index) => ({
  line: index + 2,
  values: [`p${index}@example.io`],
}));
const { queued, chunks } = queueImport(
  { columns: ['email'], rows, fileName: 'contacts.csv', bytes: 120 },
  2,
);
const record = (chunk: number, from: number, to: number): JobCommand => ({
  type: 'RecordRows',
  chunk,
  from,
  to,
  counts: { created: to - from },
  errors: [],
});

describe('contact job decider', () => {
  it('queues an import as JobQueued plus chunks of rows in file order', () => {
    expect(queued).toEqual({
      type: 'JobQueued',
      data: {
        kind: 'import',
        total: 5,
        chunkSizes: [2, 2, 1],
        columns: ['email'],
        fileName: 'contacts.csv',
        bytes: 120,
      },
    });
    expect(chunks.map((chunk) => chunk.data.chunk)).toEqual([0, 1, 2]);
    expect(chunks.flatMap((chunk) => chunk.data.rows)).toEqual(rows);
    const long = queueImport({ columns: ['email'], rows, fileName: 'x'.repeat(300), bytes: 1 });
    expect(long.queued.data.kind === 'import' && long.queued.data.fileName?.length).toBe(255);
    expect(() => queueImport({ columns: ['email'], rows: [], fileName: null, bytes: 0 })).toThrow();
  });

  it('queues a bulk job with its ids deduplicated in request order, 1 to 1,000 of them', () => {
    expect(queueBulk('bulk-unsubscribe', ['b', 'a', 'b'])).toEqual({
      type: 'JobQueued',
      data: { kind: 'bulk-unsubscribe', total: 2, chunkSizes: [2], ids: ['b', 'a'] },
    });
    const many = Array.from({ length: 1001 }, (_, index) => `id${index}`);
    expect(() => queueBulk('bulk-delete', many)).toThrow();
    expect(() => queueBulk('bulk-delete', [...many.slice(0, 1000), 'id0'])).not.toThrow();
    expect(() => queueBulk('bulk-delete', [])).toThrow();
  });

  it('starts a queued job once', () => {
    const state = given([queued]);
    expect(state.status).toBe('QUEUED');
    const started = decide(state, { type: 'StartJob' });
    expect(started).toEqual([{ type: 'JobStarted', data: {} }]);
    expect(decide(given([queued, ...started]), { type: 'StartJob' })).toEqual([]);
  });

  it('records progress slice by slice and completes with the last row', () => {
    let state = given([queued]);
    const first = decide(state, record(0, 0, 2));
    expect(first.map((event) => event.type)).toEqual(['JobStarted', 'RowsProcessed']);
    state = first.reduce(evolve, state);
    expect(state).toMatchObject({ status: 'RUNNING', done: [2, 0, 0], processed: 2 });

    // a partial slice (shutdown mid-chunk), then the rest of the chunk
    const partial = decide(state, record(1, 0, 1));
    state = partial.reduce(evolve, state);
    expect(state.done).toEqual([2, 1, 0]);
    const rest = decide(state, record(1, 1, 2));
    state = rest.reduce(evolve, state);

    const last = decide(state, record(2, 0, 1));
    expect(last.map((event) => event.type)).toEqual(['RowsProcessed', 'JobCompleted']);
    state = last.reduce(evolve, state);
    expect(state).toMatchObject({ status: 'COMPLETED', processed: 5 });
    expect(decide(state, record(2, 0, 1))).toEqual([]);
    expect(decide(state, { type: 'FailJob', reason: 'late' })).toEqual([]);
  });

  it('ignores slices already recorded or not starting at the chunk progress', () => {
    const state = given([queued, { type: 'JobStarted', data: {} }, ...decideRows()]);
    expect(decide(state, record(0, 0, 2))).toEqual([]);
    expect(decide(state, record(1, 1, 2))).toEqual([]);
    expect(decide(state, record(1, 0, 0))).toEqual([]);
  });

  it('refuses slices outside the chunk and commands on a job that does not exist', () => {
    const state = given([queued]);
    expect(() => decide(state, record(0, 0, 3))).toThrow();
    expect(() => decide(state, record(3, 0, 1))).toThrow();
    expect(() => decide(initialJob(), { type: 'StartJob' })).toThrow();
  });

  it('fails a job with its reason; a failed job takes no more rows', () => {
    const failed = decide(given([queued]), { type: 'FailJob', reason: 'broken chunk' });
    expect(failed).toEqual([{ type: 'JobFailed', data: { reason: 'broken chunk' } }]);
    const state = given([queued, ...failed]);
    expect(state.status).toBe('FAILED');
    expect(decide(state, record(0, 0, 2))).toEqual([]);
    expect(decide(state, { type: 'StartJob' })).toEqual([]);
  });
});

function decideRows(): JobEvent[] {
  return decide(given([queued, { type: 'JobStarted', data: {} }]), record(0, 0, 2));
}
