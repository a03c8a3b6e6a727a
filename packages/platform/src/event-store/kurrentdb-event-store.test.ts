import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';

import { describeWith, engineUrl, KURRENTDB } from '@stamp/testkit/engines.ts';

import { eventStoreContract } from './event-store.contract.ts';
import { DuplicateEventError } from './event-store.ts';
import { KurrentDbEventStore } from './kurrentdb-event-store.ts';

const SUITE = 'KurrentDB event store contract';
const IMAGE = 'docker.kurrent.io/kurrent-latest/kurrentdb:25.1';

/**
 * The server: `STAMP_TEST_KURRENTDB_URL`, else a container when a Docker engine answers, else the
 * suite skips with the reason printed.
 */
const configured = process.env[KURRENTDB.variable];
const docker =
  (configured === undefined || configured === '') &&
  spawnSync('docker', ['info'], { stdio: 'ignore', timeout: 15_000 }).status === 0;
const server = docker ? IMAGE : engineUrl(KURRENTDB, SUITE);
if (server === undefined) {
  console.warn(
    `${SUITE}: no Docker engine answers 'docker info' either, so no ${IMAGE} container.`,
  );
}

describeWith(server)('KurrentDbEventStore on a server', () => {
  let connectionString = configured ?? '';
  let stopContainer: (() => Promise<unknown>) | undefined;

  beforeAll(async () => {
    if (!docker) return;
    const { GenericContainer, Wait } = await import('testcontainers');
    const container = await new GenericContainer(IMAGE)
      .withEnvironment({
        KURRENTDB_INSECURE: 'true',
        KURRENTDB_RUN_PROJECTIONS: 'None',
        KURRENTDB_MEM_DB: 'true',
      })
      .withExposedPorts(2113)
      .withWaitStrategy(
        Wait.forHttp('/health/live', 2113).forStatusCodeMatching(
          (status) => status >= 200 && status < 300,
        ),
      )
      .start();
    connectionString = `kurrentdb://${container.getHost()}:${container.getMappedPort(2113)}?tls=false`;
    stopContainer = () => container.stop();
  }, 180_000);

  afterAll(async () => {
    await stopContainer?.();
  });

  /** A store of its own streams: a random prefix isolates each test on a shared server. */
  const open = (prefix = `t${randomUUID().slice(0, 8)}_`): KurrentDbEventStore =>
    new KurrentDbEventStore({ connectionString, streamPrefix: prefix });

  eventStoreContract('KurrentDB', () => Promise.resolve(open()));

  it('keeps subject keys in KurrentDB: another process reads the data, then not after erasure', async () => {
    const prefix = `t${randomUUID().slice(0, 8)}_`;
    const writer = open(prefix);
    const metadata = { subjectId: 'person-9' };
    await writer.append([
      {
        streamId: 'person-9',
        expectedRevision: 'no_stream',
        events: [{ type: 'Named', data: { email: 'eve@example.com' }, metadata }],
      },
    ]);
    const reader = open(prefix);
    expect((await reader.readStream('person-9'))[0]?.data).toEqual({ email: 'eve@example.com' });
    await reader.close();

    await writer.eraseSubject('person-9');
    const later = open(prefix);
    expect((await later.readStream('person-9'))[0]).toMatchObject({ data: {}, erased: true });
    await Promise.all([writer.close(), later.close()]);
  });
});

describe('KurrentDbEventStore checks made before a request', () => {
  // Port 9 (discard) on loopback: nothing answers, and these checks never reach the network.
  let store: KurrentDbEventStore;
  beforeEach(() => {
    store = new KurrentDbEventStore({ connectionString: 'kurrentdb://127.0.0.1:9?tls=false' });
  });
  afterEach(async () => {
    await store.close();
  });

  it('refuses an event id used twice in one append', async () => {
    const id = randomUUID();
    await expect(
      store.append([
        {
          streamId: 'timer-1',
          expectedRevision: 'no_stream',
          events: [
            { id, type: 'Fired', data: {} },
            { id, type: 'Fired', data: {} },
          ],
        },
      ]),
    ).rejects.toBeInstanceOf(DuplicateEventError);
  });

  it('refuses event ids that are not UUIDs and the reserved categories', async () => {
    await expect(
      store.append([
        {
          streamId: 'timer-1',
          expectedRevision: 'no_stream',
          events: [{ id: 'timer:1', type: 'Fired', data: {} }],
        },
      ]),
    ).rejects.toThrow('is not a UUID');
    for (const streamId of ['subjectkey-person-1', 'eventid-x', '$settings']) {
      await expect(
        store.append([{ streamId, expectedRevision: 'no_stream', events: [] }]),
      ).rejects.toThrow('reserved');
    }
  });

  it('reads nothing for an empty category list or a zero limit', async () => {
    expect(await store.readAll({ after: 0, categories: [] })).toEqual([]);
    expect(await store.readAll({ after: 0, limit: 0 })).toEqual([]);
  });
});
