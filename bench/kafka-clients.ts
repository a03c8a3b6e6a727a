import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';

import type * as KafkaJsModule from '../packages/platform/node_modules/kafkajs/types/index.js';
import type * as PlatformaticModule from '../packages/platform/node_modules/@platformatic/kafka/dist/index.js';

/**
 * Kafka client comparison (docs/decisions/0001-kafka-client.md): the same scenario with `kafkajs`
 * and with `@platformatic/kafka` (classic group protocol, and the KIP-848 `consumer` protocol)
 * against a running broker (`tools/kafka/broker.sh start`), bootstrap brokers from
 * `STAMP_TEST_KAFKA_BROKERS` (comma-separated, default 127.0.0.1:19092).
 *
 * Per client, on its own fresh topic of 6 partitions and fresh consumer groups:
 * - compatibility probes: admin, metadata, configs, offsets, idempotent and transactional produce,
 *   group offsets, group listing and deletion (one `compat` line each, `ok` or the error);
 * - produce: `KAFKA_BENCH_MESSAGES` (default 100,000) JSON messages of ~500 bytes keyed by 1,000 keys,
 *   acks=all, sequential batches of 1,000, to a topic created just before (messages/s, and the
 *   records written, which exceed the messages sent when a retried batch was written twice); then
 *   the same with an idempotent producer to a second topic;
 * - consume: one group member from the earliest offset, each fetched batch handled (JSON parsed)
 *   then committed (messages/s from the first to the last message; join time; per-key order
 *   violations; committed lag afterwards, which must be 0);
 * - rebalance: a throttled member (~10,000 messages/s) is joined by a second member after 20% of
 *   the messages; time until both hold disjoint assignments covering every partition; lost and
 *   duplicated deliveries. Both drivers skip fetched messages of partitions revoked meanwhile
 *   (kafkajs `isStale()`, the member's current assignment for @platformatic/kafka);
 * - redelivery: a member handles a batch, stops without committing it and leaves; a new member of
 *   the same group must receive every message of that batch again.
 *
 * `KAFKA_BENCH_CLIENTS` selects drivers (comma-separated; default
 * `kafkajs,platformatic,platformatic-kip848`). `KAFKA_BENCH_PLATFORMATIC_MAX_BYTES` sets the fetch
 * size of @platformatic/kafka consumers (bytes; default: the library's, 50 MiB; kafkajs fetches at
 * most 1 MiB per partition and 10 MiB per request). Each phase waits at most 60 s, the run at most 10 min.
 * Prints one line per figure: `<client>.<figure> <value> <unit>`.
 */

// Both clients are dependencies of @stamp/platform: load them from there.
const requireHere = createRequire(resolve(process.argv[1] ?? 'bench/kafka-clients.ts'));
const requirePlatform = createRequire(requireHere.resolve('@stamp/platform'));
const kafkajs = requirePlatform('kafkajs') as typeof KafkaJsModule;
const platformatic = (await import(
  pathToFileURL(requirePlatform.resolve('@platformatic/kafka')).href
)) as typeof PlatformaticModule;

const BROKERS = (process.env.STAMP_TEST_KAFKA_BROKERS ?? '127.0.0.1:19092')
  .split(',')
  .map((broker) => broker.trim())
  .filter((broker) => broker !== '');
const MESSAGES = Number(process.env.KAFKA_BENCH_MESSAGES ?? 100_000);
const KEYS = 1_000;
const PARTITIONS = 6;
const VALUE_BYTES = 500;
const PRODUCE_BATCH = 1_000;
const PHASE_MS = 60_000;
const RUN_MS = 600_000;
/** Group timings given to every client, so that rebalances compare like with like. */
const SESSION_MS = 10_000;
const HEARTBEAT_MS = 1_000;
const REBALANCE_MS = 10_000;
const FETCH_WAIT_MS = 500;
const PLATFORMATIC_MAX_BYTES = Number(process.env.KAFKA_BENCH_PLATFORMATIC_MAX_BYTES ?? 0);
/** Handling cost of the rebalance phase: ms per message (about 10,000 messages/s). */
const THROTTLE_MS_PER_MESSAGE = 0.1;

const watchdog = setTimeout(() => {
  process.stderr.write(`kafka-clients: not finished after ${RUN_MS / 1000} s, giving up\n`);
  process.exit(1);
}, RUN_MS);
watchdog.unref();

/** One record to produce: key and JSON text. */
interface Outgoing {
  key: string;
  value: string;
}

/** One message as handled by a consumer. */
interface Delivery {
  key: string;
  /** Position of the message among the messages of its key (0, 1, 2...). */
  seq: number;
  partition: number;
  offset: bigint;
}

/** What a consumer does after handling a batch: commit it, or stop without committing it. */
type Decision = 'commit' | 'stop';

/** What a group member is asked to do. */
interface ConsumeSpec {
  topic: string;
  groupId: string;
  /** Handles one fetched batch (messages of one or more partitions, in partition order). */
  handle: (batch: Delivery[]) => Promise<Decision>;
}

/** A running group member. */
interface Member {
  /** Partitions of the topic assigned to this member, sorted; null before the first assignment. */
  assigned(): number[] | null;
  /** Commits that failed (for example during a rebalance). */
  commitFailures(): number;
  /** Stops consuming and leaves the group, committing nothing more. */
  close(): Promise<void>;
}

/** One client under test. */
interface Driver {
  readonly name: string;
  createTopic(topic: string, partitions: number): Promise<void>;
  /**
   * Sends one batch with acks=all and resolves when the broker acknowledged it; `idempotent`
   * uses an idempotent producer (the broker drops retried duplicates).
   */
  produce(topic: string, batch: readonly Outgoing[], idempotent: boolean): Promise<void>;
  join(spec: ConsumeSpec): Promise<Member>;
  /**
   * Offsets of a topic summed over its partitions: `end` = records written (high watermarks),
   * `committed` = offsets committed by the group (0 for a partition without a commit).
   */
  offsets(topic: string, groupId: string): Promise<{ end: bigint; committed: bigint }>;
  /** Compatibility probes before the scenario (on a 1-partition scratch topic). */
  probesBefore(scratchTopic: string): [string, () => Promise<unknown>][];
  /** Compatibility probes after the scenario, ending with the deletion of topics and groups. */
  probesAfter(topics: string[], groups: string[]): [string, () => Promise<unknown>][];
  close(): Promise<void>;
}

function line(name: string, value: number | string, unit = ''): void {
  const shown = typeof value === 'number' && !Number.isInteger(value) ? value.toFixed(1) : value;
  process.stdout.write(`${name} ${String(shown)}${unit === '' ? '' : ` ${unit}`}\n`);
}

function errorText(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const nested = (error as Error & { errors?: unknown[] }).errors;
  const first = Array.isArray(nested) && nested[0] instanceof Error ? `: ${nested[0].message}` : '';
  return `${error.name}: ${error.message}${first}`.replace(/\s+/g, ' ').slice(0, 200);
}

async function until(condition: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() >= deadline) return false;
    await sleep(5);
  }
  return true;
}

function decode(partition: number, offset: bigint, value: string | undefined): Delivery {
  const body = JSON.parse(value ?? '{}') as { key?: string; seq?: number };
  return { key: body.key ?? '', seq: body.seq ?? -1, partition, offset };
}

function messages(count: number): Outgoing[] {
  const out: Outgoing[] = [];
  const at = new Date().toISOString();
  for (let i = 0; i < count; i++) {
    const key = `contact-${String(i % KEYS).padStart(4, '0')}`;
    const head = JSON.stringify({ key, seq: Math.floor(i / KEYS), at, pad: '' });
    const pad = 'x'.repeat(Math.max(0, VALUE_BYTES - head.length));
    out.push({ key, value: JSON.stringify({ key, seq: Math.floor(i / KEYS), at, pad }) });
  }
  return out;
}

// kafkajs ---------------------------------------------------------------------------------------

function kafkajsDriver(): Driver {
  let loggedErrors = 0;
  const kafka = new kafkajs.Kafka({
    clientId: 'stamp-bench',
    brokers: BROKERS,
    logCreator: () => (entry) => {
      if (entry.level <= kafkajs.logLevel.ERROR) loggedErrors++;
    },
  });
  const admin = kafka.admin();
  const producer = kafka.producer({ createPartitioner: kafkajs.Partitioners.DefaultPartitioner });
  const idempotentProducer = kafka.producer({
    idempotent: true,
    createPartitioner: kafkajs.Partitioners.DefaultPartitioner,
  });
  let connected: Promise<void> | undefined;
  const connect = (): Promise<void> =>
    (connected ??= Promise.all([
      admin.connect(),
      producer.connect(),
      idempotentProducer.connect(),
    ]).then(() => undefined));
  const createTopic = async (topic: string, partitions: number): Promise<void> => {
    await connect();
    await admin.createTopics({
      topics: [{ topic, numPartitions: partitions, replicationFactor: 1 }],
      waitForLeaders: true,
    });
  };

  return {
    name: 'kafkajs',
    createTopic,
    async produce(topic, batch, idempotent) {
      await (idempotent ? idempotentProducer : producer).send({
        topic,
        acks: -1,
        messages: batch.map((m) => ({ ...m })),
      });
    },
    async join(spec) {
      const consumer = kafka.consumer({
        groupId: spec.groupId,
        sessionTimeout: SESSION_MS,
        heartbeatInterval: HEARTBEAT_MS,
        rebalanceTimeout: REBALANCE_MS,
        maxWaitTimeInMs: FETCH_WAIT_MS,
      });
      let assigned: number[] | null = null;
      let failures = 0;
      let stopped = false;
      consumer.on(consumer.events.GROUP_JOIN, (event) => {
        assigned = [...(event.payload.memberAssignment[spec.topic] ?? [])].sort((a, b) => a - b);
      });
      await consumer.connect();
      await consumer.subscribe({ topics: [spec.topic], fromBeginning: true });
      await consumer.run({
        autoCommit: false,
        eachBatchAutoResolve: false,
        eachBatch: async (payload) => {
          const { batch } = payload;
          if (stopped || !payload.isRunning() || payload.isStale()) return;
          const last = batch.messages.at(-1);
          if (last === undefined) return;
          const deliveries = batch.messages.map((m) =>
            decode(batch.partition, BigInt(m.offset), m.value?.toString()),
          );
          const decision = await spec.handle(deliveries);
          if (decision === 'stop') {
            stopped = true;
            return;
          }
          payload.resolveOffset(last.offset);
          try {
            await consumer.commitOffsets([
              {
                topic: batch.topic,
                partition: batch.partition,
                offset: (BigInt(last.offset) + 1n).toString(),
              },
            ]);
          } catch {
            failures++;
          }
        },
      });
      return {
        assigned: () => assigned,
        commitFailures: () => failures,
        close: async () => {
          stopped = true;
          await consumer.disconnect();
        },
      };
    },
    async offsets(topic, groupId) {
      const [ends, committed] = await Promise.all([
        admin.fetchTopicOffsets(topic),
        admin.fetchOffsets({ groupId, topics: [topic] }),
      ]);
      let end = 0n;
      for (const partition of ends) end += BigInt(partition.high);
      let done = 0n;
      for (const partition of committed[0]?.partitions ?? []) {
        const offset = BigInt(partition.offset);
        if (offset > 0n) done += offset;
      }
      return { end, committed: done };
    },
    probesBefore(scratch) {
      return [
        ['createTopics', () => createTopic(scratch, 1)],
        ['listTopics', () => admin.listTopics()],
        ['fetchTopicMetadata', () => admin.fetchTopicMetadata({ topics: [scratch] })],
        ['describeCluster', () => admin.describeCluster()],
        [
          'describeConfigs',
          () =>
            admin.describeConfigs({
              resources: [{ type: kafkajs.ConfigResourceTypes.TOPIC, name: scratch }],
              includeSynonyms: false,
            }),
        ],
        ['fetchTopicOffsets', () => admin.fetchTopicOffsets(scratch)],
        [
          'idempotentProducer',
          async () => {
            const idempotent = kafka.producer({
              idempotent: true,
              createPartitioner: kafkajs.Partitioners.DefaultPartitioner,
            });
            await idempotent.connect();
            try {
              await idempotent.send({
                topic: scratch,
                acks: -1,
                messages: [{ key: 'k', value: 'v' }],
              });
            } finally {
              await idempotent.disconnect();
            }
          },
        ],
        [
          'transaction',
          async () => {
            const transactional = kafka.producer({
              transactionalId: `${scratch}-tx`,
              idempotent: true,
              maxInFlightRequests: 1,
              createPartitioner: kafkajs.Partitioners.DefaultPartitioner,
            });
            await transactional.connect();
            try {
              const transaction = await transactional.transaction();
              await transaction.send({ topic: scratch, messages: [{ key: 'k', value: 'v' }] });
              await transaction.commit();
            } finally {
              await transactional.disconnect();
            }
          },
        ],
      ];
    },
    probesAfter(topics, groups) {
      return [
        ['describeGroups', () => admin.describeGroups(groups)],
        ['listGroups', () => admin.listGroups()],
        ['deleteGroups', () => admin.deleteGroups(groups)],
        ['deleteTopics', () => admin.deleteTopics({ topics })],
        ['loggedErrors', async () => `${loggedErrors} error lines logged by the client`],
      ];
    },
    async close() {
      await Promise.all([
        producer.disconnect(),
        idempotentProducer.disconnect(),
        admin.disconnect(),
      ]);
    },
  };
}

// @platformatic/kafka ---------------------------------------------------------------------------

function platformaticDriver(name: string, groupProtocol: 'classic' | 'consumer'): Driver {
  const base = { clientId: 'stamp-bench', bootstrapBrokers: BROKERS };
  const admin = new platformatic.Admin(base);
  const producer = new platformatic.Producer({
    ...base,
    serializers: platformatic.stringSerializers,
  });
  const idempotentProducer = new platformatic.Producer({
    ...base,
    idempotent: true,
    serializers: platformatic.stringSerializers,
  });

  const createTopic = async (topic: string, partitions: number): Promise<void> => {
    await admin.createTopics({ topics: [topic], partitions, replicas: 1 });
    // The topic is usable once every partition has a leader in the metadata.
    const deadline = Date.now() + PHASE_MS;
    for (;;) {
      const metadata = await admin.metadata({ topics: [topic], forceUpdate: true });
      const partitionsOf = metadata.topics.get(topic)?.partitions ?? [];
      if (partitionsOf.length === partitions && partitionsOf.every((p) => p.leader >= 0)) return;
      if (Date.now() > deadline) throw new Error(`topic ${topic} has no leaders`);
      await sleep(50);
    }
  };

  return {
    name,
    createTopic,
    async produce(topic, batch, idempotent) {
      await (idempotent ? idempotentProducer : producer).send({
        messages: batch.map((m) => ({ topic, key: m.key, value: m.value })),
        acks: platformatic.ProduceAcks.ALL,
      });
    },
    async join(spec) {
      const group =
        groupProtocol === 'consumer'
          ? // Session and heartbeat timings of this protocol are the broker's (group.consumer.*).
            { groupProtocol: platformatic.GroupProtocols.CONSUMER }
          : {
              groupProtocol: platformatic.GroupProtocols.CLASSIC,
              sessionTimeout: SESSION_MS,
              heartbeatInterval: HEARTBEAT_MS,
              rebalanceTimeout: REBALANCE_MS,
            };
      const consumer = new platformatic.Consumer({
        ...base,
        ...group,
        groupId: spec.groupId,
        autocommit: false,
        maxWaitTime: FETCH_WAIT_MS,
        ...(PLATFORMATIC_MAX_BYTES > 0 ? { maxBytes: PLATFORMATIC_MAX_BYTES } : {}),
        deserializers: platformatic.stringDeserializers,
      });
      const stream = await consumer.consume({
        topics: [spec.topic],
        mode: platformatic.MessagesStreamModes.COMMITTED,
        fallbackMode: platformatic.MessagesStreamFallbackModes.EARLIEST,
        autocommit: false,
      });
      let failures = 0;
      let stopped = false;
      type Received = PlatformaticModule.Message<string, string, string, string>;
      const loop = (async () => {
        let batch: Received[] = [];
        for await (const message of stream as AsyncIterable<Received>) {
          if (stopped) break;
          batch.push(message);
          // A batch ends when 500 messages are pending or nothing more is buffered.
          if (batch.length < 500 && stream.readableLength > 0) continue;
          // Messages of partitions revoked by a rebalance since they were fetched belong to another
          // member now: drop them unhandled (as kafkajs' isStale()).
          const owned = new Set(
            consumer.assignments?.find((a) => a.topic === spec.topic)?.partitions ?? [],
          );
          const current = batch.filter((m) => owned.has(m.partition));
          batch = [];
          if (current.length === 0) continue;
          const decision = await spec.handle(
            current.map((m) => decode(m.partition, m.offset, m.value)),
          );
          if (decision === 'stop') {
            stopped = true;
            break;
          }
          const last = new Map<number, Received>();
          for (const m of current) last.set(m.partition, m);
          try {
            await consumer.commit({
              offsets: [...last.values()].map((m) => ({
                topic: m.topic,
                partition: m.partition,
                offset: m.offset + 1n,
                leaderEpoch: m.leaderEpoch,
              })),
            });
          } catch {
            failures++;
          }
        }
      })();
      return {
        assigned: () => {
          const mine = consumer.assignments?.find((a) => a.topic === spec.topic);
          return mine === undefined ? null : [...mine.partitions].sort((a, b) => a - b);
        },
        commitFailures: () => failures,
        close: async () => {
          stopped = true;
          await stream.close();
          await loop;
          await consumer.close();
        },
      };
    },
    async offsets(topic, groupId) {
      const [ends, committed] = await Promise.all([
        admin.listOffsets({
          topics: [
            {
              name: topic,
              partitions: Array.from({ length: PARTITIONS }, (_, partitionIndex) => ({
                partitionIndex,
                timestamp: platformatic.ListOffsetTimestamps.LATEST,
              })),
            },
          ],
        }),
        admin.listConsumerGroupOffsets({ groups: [groupId] }),
      ]);
      let end = 0n;
      for (const partition of ends[0]?.partitions ?? []) end += partition.offset;
      let done = 0n;
      for (const t of committed[0]?.topics ?? []) {
        if (t.name !== topic) continue;
        for (const partition of t.partitions) {
          if (partition.committedOffset > 0n) done += partition.committedOffset;
        }
      }
      return { end, committed: done };
    },
    probesBefore(scratch) {
      return [
        ['createTopics', () => createTopic(scratch, 1)],
        ['listTopics', () => admin.listTopics()],
        ['metadata', () => admin.metadata({ topics: [scratch] })],
        [
          'describeConfigs',
          () =>
            admin.describeConfigs({
              resources: [
                { resourceType: platformatic.ConfigResourceTypes.TOPIC, resourceName: scratch },
              ],
            }),
        ],
        [
          'listOffsets',
          () =>
            admin.listOffsets({
              topics: [
                {
                  name: scratch,
                  partitions: [
                    { partitionIndex: 0, timestamp: platformatic.ListOffsetTimestamps.LATEST },
                  ],
                },
              ],
            }),
        ],
        [
          'idempotentProducer',
          async () => {
            const idempotent = new platformatic.Producer({
              ...base,
              idempotent: true,
              serializers: platformatic.stringSerializers,
            });
            try {
              await idempotent.send({
                messages: [{ topic: scratch, key: 'k', value: 'v' }],
                acks: platformatic.ProduceAcks.ALL,
              });
            } finally {
              await idempotent.close();
            }
          },
        ],
        [
          'transaction',
          async () => {
            const transactional = new platformatic.Producer({
              ...base,
              idempotent: true,
              transactionalId: `${scratch}-tx`,
              serializers: platformatic.stringSerializers,
            });
            try {
              const transaction = await transactional.beginTransaction();
              await transaction.send({ messages: [{ topic: scratch, key: 'k', value: 'v' }] });
              await transaction.commit();
            } finally {
              await transactional.close();
            }
          },
        ],
      ];
    },
    probesAfter(topics, groups) {
      return [
        ['describeGroups', () => admin.describeGroups({ groups })],
        ['listGroups', () => admin.listGroups()],
        ['deleteGroups', () => admin.deleteGroups({ groups })],
        ['deleteTopics', () => admin.deleteTopics({ topics })],
      ];
    },
    async close() {
      await Promise.all([producer.close(), idempotentProducer.close(), admin.close()]);
    },
  };
}

// Scenario ----------------------------------------------------------------------------------------

const idOf = (d: Delivery): string => `${d.partition}:${d.offset}`;

async function probe(client: string, checks: [string, () => Promise<unknown>][]): Promise<void> {
  for (const [api, check] of checks) {
    try {
      const result = await check();
      line(`${client}.compat.${api}`, typeof result === 'string' ? `ok (${result})` : 'ok');
    } catch (error) {
      line(`${client}.compat.${api}`, `FAILED ${errorText(error)}`);
    }
  }
}

/**
 * Creates `topic` and produces `records` to it right away. Returns the records in the topic
 * afterwards: more than were sent when a batch was retried and written twice (a producer without
 * idempotence does that, and the retried copy also breaks per-key order).
 */
async function producePhase(
  driver: Driver,
  topic: string,
  groupId: string,
  records: Outgoing[],
  idempotent: boolean,
): Promise<number> {
  const name = `${driver.name}.produce${idempotent ? '.idempotent' : ''}`;
  await driver.createTopic(topic, PARTITIONS);
  const started = performance.now();
  for (let i = 0; i < records.length; i += PRODUCE_BATCH) {
    await driver.produce(topic, records.slice(i, i + PRODUCE_BATCH), idempotent);
  }
  const seconds = (performance.now() - started) / 1000;
  const bytes = records.reduce((sum, r) => sum + r.value.length + r.key.length, 0);
  line(name, Math.round(records.length / seconds), 'msg/s');
  line(`${name}.bandwidth`, bytes / seconds / 1_048_576, 'MiB/s');
  const written = Number((await driver.offsets(topic, groupId)).end);
  line(`${name}.records-written`, written, `for ${records.length} messages sent`);
  return written;
}

async function consumePhase(
  driver: Driver,
  topic: string,
  groupId: string,
  expected: number,
): Promise<void> {
  const seen = new Set<string>();
  const lastSeq = new Map<string, number>();
  let deliveries = 0;
  let violations = 0;
  let first = 0;
  let last = 0;
  const started = performance.now();
  const member = await driver.join({
    topic,
    groupId,
    handle: async (batch) => {
      if (first === 0) first = performance.now();
      for (const d of batch) {
        deliveries++;
        seen.add(idOf(d));
        if (d.seq <= (lastSeq.get(d.key) ?? -1)) violations++;
        lastSeq.set(d.key, d.seq);
      }
      last = performance.now();
      return 'commit';
    },
  });
  const complete = await until(() => seen.size >= expected, PHASE_MS);
  // Give the commit of the last batch time to land before reading the group's offsets.
  await sleep(500);
  await member.close();
  const name = `${driver.name}.consume`;
  if (!complete) line(`${name}.timeout`, seen.size, `of ${expected} messages`);
  line(`${name}.first-message`, Math.round(first - started), 'ms (join, first fetch decoded)');
  line(name, Math.round(seen.size / ((last - first) / 1000)), 'msg/s');
  line(`${name}.order-violations`, violations, 'messages (key sequence went back or repeated)');
  line(`${name}.duplicates`, deliveries - seen.size, 'messages');
  line(`${name}.commit-failures`, member.commitFailures(), 'commits');
  const offsets = await driver.offsets(topic, groupId);
  line(`${name}.committed-lag`, Number(offsets.end - offsets.committed), 'messages');
}

async function rebalancePhase(
  driver: Driver,
  topic: string,
  groupId: string,
  expected: number,
): Promise<void> {
  const seen = new Set<string>();
  let deliveries = 0;
  let handledBySecond = 0;
  /** Second copies handled by the first and by the second member. */
  const duplicates = { first: 0, second: 0 };
  const handle =
    (second: boolean) =>
    async (batch: Delivery[]): Promise<Decision> => {
      for (const d of batch) {
        deliveries++;
        const id = idOf(d);
        if (seen.has(id)) duplicates[second ? 'second' : 'first']++;
        seen.add(id);
      }
      if (second) handledBySecond += batch.length;
      await sleep(batch.length * THROTTLE_MS_PER_MESSAGE);
      return 'commit';
    };
  const a = await driver.join({ topic, groupId, handle: handle(false) });
  const name = `${driver.name}.rebalance`;
  let b: Member | undefined;
  try {
    if (!(await until(() => seen.size >= expected / 5, PHASE_MS))) {
      line(`${name}.timeout`, seen.size, 'messages before the second member');
      return;
    }
    const joining = performance.now();
    const aBefore = JSON.stringify(a.assigned());
    b = await driver.join({ topic, groupId, handle: handle(true) });
    const second = b;
    const balanced = await until(() => {
      const left = a.assigned() ?? [];
      const right = second.assigned() ?? [];
      const union = new Set([...left, ...right]);
      return (
        left.length > 0 &&
        right.length > 0 &&
        union.size === PARTITIONS &&
        left.length + right.length === PARTITIONS &&
        JSON.stringify(left) !== aBefore
      );
    }, PHASE_MS);
    const assignedMs = performance.now() - joining;
    const atBalance = seen.size;
    const complete = await until(() => seen.size >= expected, PHASE_MS);
    line(
      `${name}.assign`,
      balanced ? Math.round(assignedMs) : `FAILED after ${Math.round(assignedMs)} ms`,
      balanced
        ? `ms (second member joins until both hold disjoint assignments of all ${PARTITIONS} partitions)`
        : '',
    );
    line(
      `${name}.assignment`,
      `${JSON.stringify(a.assigned())} + ${JSON.stringify(second.assigned())}`,
    );
    line(`${name}.remaining-at-balance`, expected - atBalance, 'messages');
    line(`${name}.lost`, expected - seen.size, complete ? 'messages' : 'messages (timed out)');
    line(
      `${name}.duplicates`,
      deliveries - seen.size,
      `messages (${duplicates.first} handled again by the first member, ${duplicates.second} by the second)`,
    );
    line(`${name}.second-member-share`, handledBySecond, 'messages');
    line(`${name}.commit-failures`, a.commitFailures() + second.commitFailures(), 'commits');
  } finally {
    await Promise.all([a.close(), b?.close()]);
  }
}

async function redeliveryPhase(
  driver: Driver,
  topic: string,
  groupId: string,
  expected: number,
): Promise<void> {
  const committedOrHandled = new Set<string>();
  const uncommitted = new Set<string>();
  const name = `${driver.name}.redelivery`;
  const first = await driver.join({
    topic,
    groupId,
    handle: async (batch) => {
      for (const d of batch) committedOrHandled.add(idOf(d));
      if (committedOrHandled.size < (expected * 3) / 10) return 'commit';
      // Handled, not committed: the member stops here as if it crashed before the commit.
      for (const d of batch) uncommitted.add(idOf(d));
      return 'stop';
    },
  });
  const stoppedInTime = await until(() => uncommitted.size > 0, PHASE_MS);
  await first.close();
  if (!stoppedInTime) {
    line(`${name}.timeout`, committedOrHandled.size, 'messages before the stop');
    return;
  }
  const again = new Set<string>();
  let redeliveredCommitted = 0;
  const second = await driver.join({
    topic,
    groupId,
    handle: async (batch) => {
      for (const d of batch) {
        const id = idOf(d);
        if (committedOrHandled.has(id) && !uncommitted.has(id)) redeliveredCommitted++;
        again.add(id);
      }
      return 'commit';
    },
  });
  const union = (): number => {
    let count = committedOrHandled.size;
    for (const id of again) if (!committedOrHandled.has(id)) count++;
    return count;
  };
  const complete = await until(() => union() >= expected, PHASE_MS);
  await second.close();
  const redelivered = [...uncommitted].filter((id) => again.has(id)).length;
  line(`${name}.uncommitted`, uncommitted.size, 'messages handled, not committed, then stopped');
  line(`${name}.redelivered`, redelivered, `of ${uncommitted.size} messages`);
  line(`${name}.committed-redelivered`, redeliveredCommitted, 'messages (0 expected)');
  line(`${name}.lost`, expected - union(), complete ? 'messages' : 'messages (timed out)');
}

async function run(driver: Driver): Promise<void> {
  const suffix = randomBytes(4).toString('hex');
  const topic = `bench-kafka-clients-${driver.name}-${suffix}`;
  const scratch = `${topic}-probe`;
  const idempotentTopic = `${topic}-idempotent`;
  const groups = ['consume', 'rebalance', 'redelivery'].map((g) => `${topic}-${g}`);
  const records = messages(MESSAGES);
  try {
    await probe(driver.name, driver.probesBefore(scratch));
    let expected = records.length;
    const phases: [string, () => Promise<void>][] = [
      [
        'produce',
        async () => {
          expected = await producePhase(driver, topic, groups[0] ?? '', records, false);
        },
      ],
      [
        'produce.idempotent',
        async () => {
          await producePhase(driver, idempotentTopic, groups[0] ?? '', records, true);
        },
      ],
      ['consume', () => consumePhase(driver, topic, groups[0] ?? '', expected)],
      ['rebalance', () => rebalancePhase(driver, topic, groups[1] ?? '', expected)],
      ['redelivery', () => redeliveryPhase(driver, topic, groups[2] ?? '', expected)],
    ];
    for (const [phase, body] of phases) {
      try {
        await body();
      } catch (error) {
        line(`${driver.name}.${phase}`, `FAILED ${errorText(error)}`);
      }
    }
  } catch (error) {
    line(`${driver.name}.setup`, `FAILED ${errorText(error)}`);
  } finally {
    await probe(driver.name, driver.probesAfter([topic, idempotentTopic, scratch], groups));
    await driver.close();
  }
}

const drivers: Record<string, () => Driver> = {
  kafkajs: kafkajsDriver,
  platformatic: () => platformaticDriver('platformatic', 'classic'),
  'platformatic-kip848': () => platformaticDriver('platformatic-kip848', 'consumer'),
};
const selected = (process.env.KAFKA_BENCH_CLIENTS ?? Object.keys(drivers).join(','))
  .split(',')
  .map((name) => name.trim())
  .filter((name) => name !== '');

line(
  'kafka-clients.scenario',
  `${MESSAGES} messages of ~${VALUE_BYTES} B, ${KEYS} keys, ${PARTITIONS} partitions, brokers ${BROKERS.join(',')}`,
);
for (const name of selected) {
  const create = drivers[name];
  if (create === undefined) {
    process.stderr.write(
      `kafka-clients: unknown client ${name} (${Object.keys(drivers).join(', ')})\n`,
    );
    process.exit(2);
  }
  await run(create());
}
clearTimeout(watchdog);
