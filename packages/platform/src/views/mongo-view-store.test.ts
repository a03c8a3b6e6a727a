import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';

import { describeWith, engineUrl, MONGODB } from '@stamp/testkit/engines.ts';
import { MongoClient } from 'mongodb';

import { MongoCheckpointStore } from '../bus/mongo-checkpoint-store.ts';
import { leaseStoreContract } from '../timers/leases.contract.ts';
import { MongoLeaseStore } from '../timers/mongo-leases.ts';
import { applyAtRevision } from './apply-at-revision.ts';
import { MongoViewStore } from './mongo-view-store.ts';
import { viewStoreContract } from './view-store.contract.ts';
import { DuplicateKeyError } from './view-store.ts';

/**
 * The MongoDB adapters (views, leases, checkpoints) against the server named by
 * STAMP_TEST_MONGODB_URL (the mongo-java-server stand-in unless STAMP_TEST_MONGODB_IS_STANDIN is
 * `false`); without it, a `mongo:8` container when a Docker engine answers; else skipped with the
 * reason printed. Every test works in a database of its own, dropped afterwards.
 */
const SUITE = 'MongoDB adapters';

/** Whether `docker info` succeeds, i.e. testcontainers can start a container. */
function dockerAnswers(): boolean {
  try {
    execFileSync('docker', ['info'], { stdio: 'ignore', timeout: 15_000 });
    return true;
  } catch {
    return false;
  }
}

const configured = process.env[MONGODB.variable];
const useContainer = (configured === undefined || configured === '') && dockerAnswers();
const standIn = !useContainer && process.env.STAMP_TEST_MONGODB_IS_STANDIN !== 'false';
const url = useContainer ? 'testcontainers' : engineUrl(MONGODB, SUITE);
const label = useContainer
  ? 'MongoDB 8 (testcontainers)'
  : standIn
    ? 'MongoDB stand-in (mongo-java-server)'
    : 'MongoDB';

if (url === undefined) {
  console.warn(
    `${SUITE}: no Docker engine answers \`docker info\` either, so no mongo:8 container.`,
  );
} else if (standIn) {
  console.warn(
    `${SUITE} run against the MongoDB stand-in (mongo-java-server), not MongoDB. ` +
      'It cannot prove: write concern and journaling (it accepts and ignores every write ' +
      'concern, even w: 2 on one node); replica-set failover and retryable writes; sessions ' +
      'and transactions (unsupported); index use by the query planner (no explain command; ' +
      'non-unique indexes are accepted but not built); update pipelines and newer aggregation ' +
      'operators ($setWindowFields, $dateFromString); the `hello` handshake (the driver falls ' +
      'back to isMaster). Set STAMP_TEST_MONGODB_IS_STANDIN=false with a real MongoDB URL to ' +
      'prove those.',
  );
}

/** Connection string of the engine, with its database path; set by beforeAll for a container. */
let baseUrl = url ?? '';
let stopContainer: (() => Promise<unknown>) | undefined;

beforeAll(async () => {
  if (!useContainer) return;
  const { GenericContainer, Wait } = await import('testcontainers');
  const container = await new GenericContainer('mongo:8')
    .withExposedPorts(27017)
    .withWaitStrategy(Wait.forLogMessage(/Waiting for connections/))
    .start();
  stopContainer = () => container.stop();
  baseUrl = `mongodb://${container.getHost()}:${String(container.getMappedPort(27017))}/stamp`;
}, 180_000);

afterAll(async () => {
  await stopContainer?.();
});

/** `baseUrl` with its database replaced by a fresh one (its name plus a random suffix). */
function freshDatabaseUrl(): string {
  const match = /^(mongodb(?:\+srv)?:\/\/[^/?]*)(?:\/([^?]*))?(\?.*)?$/.exec(baseUrl);
  if (match === null) throw new Error(`not a MongoDB connection string: ${baseUrl}`);
  const [, hosts, database, query] = match;
  const base = database === undefined || database === '' ? 'stamp' : database;
  return `${hosts ?? ''}/${base}_${randomBytes(4).toString('hex')}${query ?? ''}`;
}

/** A store on a fresh database; its `close` drops the database, then closes the client. */
async function freshStore(): Promise<MongoViewStore> {
  const store = await MongoViewStore.connect(freshDatabaseUrl(), {
    client: { serverSelectionTimeoutMS: 10_000 },
  });
  const close = store.close.bind(store);
  store.close = async () => {
    await store.db.dropDatabase();
    await close();
  };
  return store;
}

const describeMongo = describeWith(url);

describeMongo(label, () => {
  viewStoreContract(label, freshStore);

  leaseStoreContract(label, async () => {
    const store = await freshStore();
    return { leases: new MongoLeaseStore(store.db), close: () => store.close() };
  });

  describe(`MongoViewStore specifics: ${label}`, () => {
    let views: MongoViewStore;
    beforeEach(async () => {
      views = await freshStore();
    });
    afterEach(async () => {
      await views.close();
    });

    it('runs every operation of an unordered bulk write despite duplicate keys', async () => {
      const contacts = views.collection('contacts');
      await contacts.insertOne({ _id: 'c1', revision: 5, email: 'new@x.io' });
      await contacts.bulkWrite([
        // A replayed event: the guard misses, the upsert repeats the _id and fails with 11000.
        {
          updateOne: {
            filter: { _id: 'c1', revision: { $lt: 3 } },
            update: { $set: { revision: 3, email: 'old@x.io' } },
            upsert: true,
          },
        },
        {
          updateOne: {
            filter: { _id: 'c2', revision: { $lt: 0 } },
            update: { $set: { revision: 0, email: 'b@x.io' } },
            upsert: true,
          },
        },
        { replaceOne: { filter: { _id: 'c3' }, replacement: { _id: 'c3', n: 1 }, upsert: true } },
      ]);
      expect(await contacts.find({}, { sort: { _id: 1 } })).toEqual([
        { _id: 'c1', revision: 5, email: 'new@x.io' },
        { _id: 'c2', revision: 0, email: 'b@x.io' },
        { _id: 'c3', n: 1 },
      ]);
    });

    it('reports a failure other than a duplicate key after running the other operations', async () => {
      const counters = views.collection('counters');
      await counters.insertOne({ _id: 'a', n: 'not a number' });
      await expect(
        counters.bulkWrite([
          { updateOne: { filter: { _id: 'a' }, update: { $inc: { n: 1 } } } },
          { updateOne: { filter: { _id: 'b' }, update: { $inc: { n: 1 } }, upsert: true } },
        ]),
      ).rejects.toThrow();
      expect(await counters.findOne({ _id: 'b' })).toEqual({ _id: 'b', n: 1 });
    });

    it('maps duplicate keys of single writes to DuplicateKeyError, absorbed by applyAtRevision', async () => {
      const contacts = views.collection('contacts');
      expect(await applyAtRevision(contacts, 'c1', 0, { $set: { email: 'a@x.io' } }, true)).toBe(
        true,
      );
      expect(await applyAtRevision(contacts, 'c1', 1, { $set: { email: 'b@x.io' } }, true)).toBe(
        true,
      );
      // Replays of both events change nothing.
      expect(await applyAtRevision(contacts, 'c1', 0, { $set: { email: 'a@x.io' } }, true)).toBe(
        false,
      );
      expect(await applyAtRevision(contacts, 'c1', 1, { $set: { email: 'b@x.io' } }, true)).toBe(
        false,
      );
      expect(await contacts.findOne({ _id: 'c1' })).toEqual({
        _id: 'c1',
        email: 'b@x.io',
        revision: 1,
      });
      const error: unknown = await contacts
        .updateOne({ _id: 'c1', revision: { $lt: 0 } }, { $set: { revision: 0 } }, { upsert: true })
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(DuplicateKeyError);
      expect((error as DuplicateKeyError).message).toContain('contacts');
    });

    it('returns plain results: no driver fields, ISO date strings kept, undefined fields left out', async () => {
      const items = views.collection('items');
      const at = new Date(0).toISOString();
      await items.insertOne({ _id: 'i', at, gone: undefined });
      expect(await items.findOne({ _id: 'i' })).toEqual({ _id: 'i', at });
      expect(await items.countDocuments({ at: { $gte: '1970' } })).toBe(1);
      expect(await items.updateOne({ _id: 'i' }, { $set: { n: 1 } })).toEqual({
        matchedCount: 1,
        modifiedCount: 1,
      });
      expect(await items.updateOne({ _id: 'j' }, { $set: { n: 1 } }, { upsert: true })).toEqual({
        matchedCount: 0,
        modifiedCount: 0,
        upsertedId: 'j',
      });
      expect(await items.deleteOne({ _id: 'j' })).toEqual({ deletedCount: 1 });
      expect(await items.deleteMany({})).toEqual({ deletedCount: 1 });
    });

    it('creates indexes idempotently, drops missing collections, flushes at once', async () => {
      const people = views.collection('people');
      await people.createIndex({ projectId: 1, email: 1 }, { unique: true });
      await people.createIndex({ projectId: 1, email: 1 }, { unique: true });
      await people.createIndex({ projectId: 1 });
      await people.createIndex({ projectId: 1 });
      await people.insertOne({ _id: 'a', projectId: 'p', email: 'a@x.io' });
      await expect(
        people.insertOne({ _id: 'b', projectId: 'p', email: 'a@x.io' }),
      ).rejects.toBeInstanceOf(DuplicateKeyError);
      await views.drop('never-created');
      await views.flush();
    });

    it('leaves a client it did not create open on close', async () => {
      const client = await MongoClient.connect(freshDatabaseUrl(), {
        serverSelectionTimeoutMS: 10_000,
      });
      try {
        const shared = new MongoViewStore(client.db());
        await shared.collection('x').insertOne({ _id: '1' });
        await shared.close();
        expect(await client.db().collection('x').countDocuments({})).toBe(1);
        await client.db().dropDatabase();
      } finally {
        await client.close();
      }
    });
  });

  describe(`MongoCheckpointStore: ${label}`, () => {
    let views: MongoViewStore;
    let checkpoints: MongoCheckpointStore;
    beforeEach(async () => {
      views = await freshStore();
      checkpoints = new MongoCheckpointStore(views.db);
    });
    afterEach(async () => {
      await views.close();
    });

    it('loads 0, saves, never moves backwards, and resets', async () => {
      expect(await checkpoints.load('projector')).toBe(0);
      await checkpoints.save('projector', 120);
      expect(await checkpoints.load('projector')).toBe(120);
      await checkpoints.save('projector', 80);
      expect(await checkpoints.load('projector')).toBe(120);
      await checkpoints.save('projector', 121);
      expect(await checkpoints.load('projector')).toBe(121);
      expect(await checkpoints.load('relay')).toBe(0);
      await checkpoints.reset('projector');
      expect(await checkpoints.load('projector')).toBe(0);
      await checkpoints.save('projector', 7);
      expect(await checkpoints.load('projector')).toBe(7);
      await checkpoints.reset('never-saved');
    });

    it('keeps the highest of concurrent first saves', async () => {
      const positions = Array.from({ length: 20 }, (_, index) => (index * 7919) % 101);
      await Promise.all(positions.map((position) => checkpoints.save('group', position)));
      expect(await checkpoints.load('group')).toBe(Math.max(...positions));
    });
  });

  describe(`MongoLeaseStore under contention: ${label}`, () => {
    it('grants a free lease to exactly one of many concurrent owners', async () => {
      const views = await freshStore();
      try {
        const leases = new MongoLeaseStore(views.db);
        const owners = Array.from({ length: 10 }, (_, index) => `owner-${String(index)}`);
        const granted = await Promise.all(
          owners.map((owner) => leases.acquire('relay', owner, 10_000)),
        );
        expect(granted.filter(Boolean)).toHaveLength(1);
      } finally {
        await views.close();
      }
    });
  });
});
