/**
 * `./pnpmw bench distributed`: the distributed mode on this machine's engines (Kafka from
 * `tools/kafka/broker.sh start`, the MongoDB stand-in from `tools/mongo/server.sh start`; set
 * `STAMP_TEST_KAFKA_BROKERS` and `STAMP_TEST_MONGODB_URL` as `.ci/run` does).
 *
 * 1. relay throughput: events/s from the embedded store to Kafka (acks=all), one relay;
 * 2. projector throughput: the contacts projection consuming Kafka into the MongoDB stand-in;
 * 3. end-to-end latency of `POST /v1/track` until `GET /events` lists the event, p50/p99, with
 *    gateway, accounts, contacts and the relay as separate processes.
 */
import { randomBytes, randomUUID } from 'node:crypto';

import { createContactsService } from '@stamp/contacts';
import { createLogger, DnsResolver, openEmbeddedPlatform, Secrets } from '@stamp/platform';
import {
  KafkaBus,
  KafkaPublisher,
  KafkaTopics,
  MongoViewStore,
  Relay,
} from '@stamp/platform/distributed.ts';
import { benchDirectory, figure, KEYS, type Running, startProcess } from './harness.ts';

const brokers = process.env.STAMP_TEST_KAFKA_BROKERS ?? '127.0.0.1:19092';
const mongoUrl = process.env.STAMP_TEST_MONGODB_URL ?? 'mongodb://127.0.0.1:27018/stamp';
const CONTACTS = Number(process.env.BENCH_CONTACTS ?? 10_000);
const TRACKS = Number(process.env.BENCH_TRACKS ?? 300);
const STANDIN = process.env.STAMP_TEST_MONGODB_IS_STANDIN !== 'false';
const viewsLabel = STANDIN ? 'mongodb-standin' : 'mongodb';

const logger = createLogger({ level: 'silent' });
const dataDir = benchDirectory('stamp-bench-distributed-');
const prefix = `bench${randomUUID().slice(0, 8)}.`;
const settings = { brokers: brokers.split(','), topicPrefix: prefix, partitions: 6 };
const secrets = new Secrets(randomBytes(32));

// --- 1. relay throughput -------------------------------------------------------------------
const platform = openEmbeddedPlatform({ dataDir, logger });
const writer = createContactsService({
  store: platform.store,
  bus: platform.bus,
  views: platform.views,
  logger,
  awaitViews: async () => undefined,
  resolver: new DnsResolver({ servers: [] }),
  secrets,
});
const projectId = randomUUID();
for (let index = 0; index < CONTACTS; index++) {
  await writer.api.upsertRecipient({
    projectId,
    email: `person${index}@example.org`,
    data: { plan: index % 2 === 0 ? 'pro' : 'free', index },
    defaultSubscribed: true,
    correlationId: randomUUID(),
  });
}
const head = await platform.store.headPosition();
const topics = new KafkaTopics(settings);
const publisher = new KafkaPublisher(settings);
const relay = new Relay({
  store: platform.store,
  publisher,
  topics,
  checkpoints: platform.checkpoints,
  leases: platform.leases,
  logger,
  pollMs: 5,
});
let started = performance.now();
relay.start();
while (relay.position() < head) await new Promise((resolve) => setTimeout(resolve, 5));
const relaySeconds = (performance.now() - started) / 1000;
figure('relay.events', head, 'events');
figure('relay.throughput', Math.round(head / relaySeconds), 'events/s');

// --- 2. projector throughput into the view store ---------------------------------------------
const views = await MongoViewStore.connect(
  mongoUrl.replace(/\/[^/]*$/, `/bench_${randomUUID().slice(0, 8)}`),
);
const bus = new KafkaBus({
  ...settings,
  logger,
  published: () => Promise.resolve(relay.position()),
});
const projector = createContactsService({
  store: platform.store,
  bus,
  views,
  logger,
  awaitViews: async () => undefined,
  resolver: new DnsResolver({ servers: [] }),
  secrets,
});
const contactEvents = (await platform.store.readAll({ after: 0, limit: 10 * head })).filter(
  (event) => event.streamId.startsWith('contact-'),
).length;
started = performance.now();
await projector.start();
for (const consumer of projector.projections()) {
  while (!(await consumer.waitFor(head, 5000))) {
    // keeps waiting: the projection is still catching up
  }
}
const projectorSeconds = (performance.now() - started) / 1000;
figure(`projector.contacts.${viewsLabel}.events`, contactEvents, 'events');
figure(
  `projector.contacts.${viewsLabel}.throughput`,
  Math.round(contactEvents / projectorSeconds),
  'events/s',
);
await projector.stop();
await bus.close();
await views.db.dropDatabase();
await views.close();
await relay.stop();

// --- 3. POST /v1/track → GET /events, processes on Kafka and the view store -----------------
const env = {
  STAMP_DATA_DIR: benchDirectory('stamp-bench-processes-'),
  STAMP_BUS: 'kafka',
  STAMP_KAFKA_BROKERS: brokers,
  STAMP_KAFKA_TOPIC_PREFIX: `bench${randomUUID().slice(0, 8)}.`,
  STAMP_VIEWS: 'mongodb',
  STAMP_MONGODB_URL: mongoUrl.replace(/\/[^/]*$/, `/bench_${randomUUID().slice(0, 8)}`),
  STAMP_SECRET: randomBytes(32).toString('hex'),
  STAMP_INTERNAL_TOKEN: randomBytes(24).toString('hex'),
  STAMP_BOOTSTRAP_SECRET_KEY: KEYS.secretKey,
  STAMP_BOOTSTRAP_PUBLIC_KEY: KEYS.publicKey,
  OTEL_SDK_DISABLED: 'true',
  STAMP_INBOUND_SMTP_PORT: '0',
};
const running: Running[] = [];
const start = async (name: string, extra: Record<string, string> = {}): Promise<Running> => {
  const process = await startProcess(`services/${name}/src/main.ts`, { ...env, ...extra });
  running.push(process);
  return process;
};
try {
  await start('relay');
  const accounts = await start('accounts');
  const contacts = await start('contacts');
  const placeholder = 'http://127.0.0.1:9';
  const gateway = await start('gateway', {
    STAMP_ACCOUNTS_URL: accounts.url,
    STAMP_CONTACTS_URL: contacts.url,
    STAMP_DOMAINS_URL: placeholder,
    STAMP_SENDING_URL: placeholder,
    STAMP_ACTIVITY_URL: placeholder,
    STAMP_SEGMENTS_URL: placeholder,
    STAMP_CAMPAIGNS_URL: placeholder,
    STAMP_RATE_LIMIT_PER_MINUTE: '100000000',
  });
  const latencies: number[] = [];
  for (let index = 0; index < TRACKS; index++) {
    const begin = performance.now();
    const tracked = await fetch(`${gateway.url}/v1/track`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEYS.publicKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ event: 'bench-latency', email: `t${index % 50}@example.org` }),
    });
    const eventId = ((await tracked.json()) as { data: { event: string } }).data.event;
    for (;;) {
      const listed = await fetch(`${gateway.url}/events?limit=5`, {
        headers: { authorization: `Bearer ${KEYS.secretKey}` },
      });
      const body = (await listed.json()) as { data: { id: string }[] };
      if (body.data.some((event) => event.id === eventId)) break;
    }
    latencies.push(performance.now() - begin);
  }
  latencies.sort((a, b) => a - b);
  const at = (quantile: number): number =>
    latencies[Math.min(latencies.length - 1, Math.floor(quantile * latencies.length))] ?? 0;
  figure(`track-to-events.${viewsLabel}.requests`, latencies.length, 'requests');
  figure(`track-to-events.${viewsLabel}.p50`, at(0.5), 'ms');
  figure(`track-to-events.${viewsLabel}.p99`, at(0.99), 'ms');
} finally {
  for (const process of running.reverse()) await process.stop();
  const processTopics = new KafkaTopics({ ...settings, topicPrefix: env.STAMP_KAFKA_TOPIC_PREFIX });
  await processTopics.delete(await processTopics.list());
  await topics.delete(await topics.list());
  await Promise.all([topics.close(), processTopics.close(), publisher.close()]);
  await platform.close();
}
