import { randomBytes } from 'node:crypto';

import { type BulkOperation, type Update } from '@stamp/platform';
import { MongoViewStore } from '@stamp/platform/distributed.ts';
import { figure } from './harness.ts';

/**
 * A projector-like write load on the MongoDB view adapter: 50,000 events over 10,000 documents
 * (5 revisions each), each written as an `updateOne` upsert guarded by revision
 * (`{_id, revision: {$lt: r}}`, as applyAtRevision does), first one at a time, then in unordered
 * `bulkWrite` batches of 500. Prints documents written per second for each, labelled with the
 * engine: the server at STAMP_TEST_MONGODB_URL, the mongo-java-server stand-in unless
 * STAMP_TEST_MONGODB_IS_STANDIN is `false`. Each mode writes into a fresh database, dropped
 * afterwards; each stops after 60 s, reports the rate of what it wrote by then, and then also
 * prints how many events it wrote. The stand-in answers a filter from an index only when the
 * filter's fields are exactly the index's, so there every guarded upsert scans the collection.
 */
const EVENTS = 50_000;
const DOCUMENTS = 10_000;
const BATCH = 500;
const LIMIT_MS = 60_000;

const url = process.env.STAMP_TEST_MONGODB_URL ?? '';
if (url === '') {
  process.stderr.write('mongo-views: set STAMP_TEST_MONGODB_URL (tools/mongo/server.sh start)\n');
  process.exit(2);
}
const engine =
  process.env.STAMP_TEST_MONGODB_IS_STANDIN === 'false'
    ? 'MongoDB'
    : 'MongoDB stand-in (mongo-java-server)';

/** `url` with its database replaced by a fresh one. */
function freshDatabaseUrl(): string {
  const match = /^(mongodb(?:\+srv)?:\/\/[^/?]*)(?:\/([^?]*))?(\?.*)?$/.exec(url);
  if (match === null) throw new Error(`not a MongoDB connection string: ${url}`);
  const [, hosts, database, query] = match;
  const base = database === undefined || database === '' ? 'stamp' : database;
  return `${hosts ?? ''}/${base}_bench_${randomBytes(4).toString('hex')}${query ?? ''}`;
}

/** Event `index` as a guarded upsert: document index % DOCUMENTS, revision index / DOCUMENTS. */
function event(index: number): { filter: Record<string, unknown>; update: Update } {
  const revision = Math.floor(index / DOCUMENTS);
  const id = `contact-${String(index % DOCUMENTS).padStart(6, '0')}`;
  return {
    filter: { _id: id, revision: { $lt: revision } },
    update: {
      $set: {
        revision,
        projectId: 'bench',
        email: `${id}@example.io`,
        updatedAt: new Date(1_700_000_000_000 + index).toISOString(),
      },
      $setOnInsert: { createdAt: new Date(1_700_000_000_000).toISOString() },
    },
  };
}

/**
 * Runs `write` (returns how many events it wrote before `deadline`, ms of performance.now()) on a
 * fresh store, checks the documents when all were written, drops them, prints the figures.
 */
async function measure(
  name: string,
  write: (store: MongoViewStore, deadline: number) => Promise<number>,
): Promise<void> {
  const store = await MongoViewStore.connect(freshDatabaseUrl(), {
    client: { serverSelectionTimeoutMS: 10_000 },
  });
  try {
    const started = performance.now();
    const written = await write(store, started + LIMIT_MS);
    const seconds = (performance.now() - started) / 1000;
    if (written === EVENTS) {
      const latest = await store
        .collection('contacts')
        .countDocuments({ revision: EVENTS / DOCUMENTS - 1 });
      if (latest !== DOCUMENTS) throw new Error(`${String(latest)} documents at the last revision`);
    }
    figure(name, Math.round(written / seconds), `docs/s (${engine})`);
    if (written < EVENTS) figure(`${name}.written_in_time_limit`, written, `docs (${engine})`);
  } finally {
    await store.db.dropDatabase();
    await store.close();
  }
}

await measure('mongo_views.guarded_upserts.sequential', async (store, deadline) => {
  const contacts = store.collection('contacts');
  let index = 0;
  for (; index < EVENTS && performance.now() < deadline; index += 1) {
    const { filter, update } = event(index);
    await contacts.updateOne(filter, update, { upsert: true });
  }
  return index;
});

await measure(
  `mongo_views.guarded_upserts.bulk_write_${String(BATCH)}`,
  async (store, deadline) => {
    const contacts = store.collection('contacts');
    let index = 0;
    while (index < EVENTS && performance.now() < deadline) {
      const operations: BulkOperation[] = [];
      for (const end = Math.min(index + BATCH, EVENTS); index < end; index += 1) {
        operations.push({ updateOne: { ...event(index), upsert: true } });
      }
      await contacts.bulkWrite(operations);
    }
    return index;
  },
);
