import { SqliteEventStore } from '../event-store/sqlite-event-store.ts';
import { createLogger } from '../logger.ts';
import { openDatabase } from '../sqlite/database.ts';
import { busContract } from './bus.contract.ts';
import { SqliteCheckpointStore } from './checkpoint-store.ts';
import { LogBus } from './log-bus.ts';

busContract('embedded log bus', () => {
  const db = openDatabase(':memory:');
  const store = new SqliteEventStore(db);
  const checkpoints = new SqliteCheckpointStore(db);
  const logger = createLogger({ level: 'silent' });
  return Promise.resolve({
    store,
    bus: () => new LogBus({ store, checkpoints, logger, retryMs: 5 }),
    close: async () => {
      db.close();
    },
  });
});

describe('LogBus shared pass', () => {
  const logger = createLogger({ level: 'silent' });

  /** A store that counts its reads of the log. */
  function counted(): {
    store: SqliteEventStore;
    reads: () => number;
    db: ReturnType<typeof openDatabase>;
  } {
    const db = openDatabase(':memory:');
    const store = new SqliteEventStore(db);
    let reads = 0;
    const readAll = store.readAll.bind(store);
    store.readAll = (options) => {
      reads += 1;
      return readAll(options);
    };
    return { store, reads: () => reads, db };
  }

  const append = (store: SqliteEventStore, streamId: string, type: string) =>
    store.append([{ streamId, expectedRevision: 'any', events: [{ type, data: {} }] }]);

  it('reads each batch once for the groups that caught up, each group in order', async () => {
    const { store, reads, db } = counted();
    const checkpoints = new SqliteCheckpointStore(db);
    const bus = new LogBus({ store, checkpoints, logger, passBatchSize: 10 });
    for (let index = 0; index < 100; index += 1) {
      await append(store, `contact-${index % 3}`, `C${index}`);
      if (index % 10 === 0) await append(store, `other-${index}`, `O${index}`);
    }
    const seen = new Map<string, string[]>();
    const groups = ['a', 'b', 'c'].map((groupId) =>
      bus.consume({
        groupId,
        topics: groupId === 'c' ? ['other'] : ['contact'],
        handle: async (event) => {
          seen.set(groupId, [...(seen.get(groupId) ?? []), event.type]);
        },
      }),
    );
    const head = await store.headPosition();
    try {
      for (const group of groups) expect(await group.waitFor(head, 5000)).toBe(true);
    } finally {
      await Promise.all(groups.map((group) => group.stop()));
    }
    // Three groups each reading alone would read at least 3 × 11 batches.
    expect(reads()).toBeLessThan(16);
    // Per key (stream) in order: contact-k holds Ck, Ck+3, Ck+6, …
    for (const groupId of ['a', 'b']) {
      const got = seen.get(groupId) ?? [];
      expect(got).toHaveLength(100);
      for (let key = 0; key < 3; key += 1) {
        const mine = got.filter((type) => Number(type.slice(1)) % 3 === key);
        expect(mine).toEqual(
          mine
            .map((type) => Number(type.slice(1)))
            .sort((x, y) => x - y)
            .map((n) => `C${n}`),
        );
      }
    }
    expect(seen.get('c')).toEqual(Array.from({ length: 10 }, (_, index) => `O${index * 10}`));
    db.close();
  });

  it('lets a failing group retry on its own while the others go on, and takes a late group in', async () => {
    const { store, db } = counted();
    const checkpoints = new SqliteCheckpointStore(db);
    const bus = new LogBus({ store, checkpoints, logger, retryMs: 5, passBatchSize: 4 });
    const steady: string[] = [];
    const flaky: string[] = [];
    let failures = 0;
    const one = bus.consume({
      groupId: 'steady',
      topics: ['contact'],
      handle: async (event) => {
        steady.push(event.type);
      },
    });
    const two = bus.consume({
      groupId: 'flaky',
      topics: ['contact'],
      handle: async (event) => {
        if (event.type === 'E5' && failures++ < 3) throw new Error('transient');
        flaky.push(event.type);
      },
    });
    for (let index = 0; index < 12; index += 1) await append(store, 'contact-1', `E${index}`);
    const head = await store.headPosition();
    expect(await one.waitFor(head, 5000)).toBe(true);
    expect(await two.waitFor(head, 5000)).toBe(true);
    const expected = Array.from({ length: 12 }, (_, index) => `E${index}`);
    expect(steady).toEqual(expected);
    // At least once: a batch is handled again from its start after a failure.
    expect([...new Set(flaky)]).toEqual(expected);
    expect(failures).toBe(4);
    const late: string[] = [];
    const three = bus.consume({
      groupId: 'late',
      topics: ['contact'],
      handle: async (event) => {
        late.push(event.type);
      },
    });
    await append(store, 'contact-2', 'F');
    const end = await store.headPosition();
    for (const group of [one, two, three]) expect(await group.waitFor(end, 5000)).toBe(true);
    expect(late).toEqual([...expected, 'F']);
    expect(steady.at(-1)).toBe('F');
    await Promise.all([one, two, three].map((group) => group.stop()));
    db.close();
  });
});
