import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

import { context, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import {
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace';
import express from 'express';

import type { Consumer } from '../bus/bus.ts';
import { type EmbeddedPlatform, openEmbeddedPlatform } from '../embedded.ts';
import type { RecordedEvent } from '../event-store/event-store.ts';
import { createLogger } from '../logger.ts';
import { APPEND_SPAN_NAME, TracedEventStore } from './traced-event-store.ts';
import { tracedBatchHandler, tracedHandler } from './traced-handler.ts';
import { startTelemetry, type Telemetry } from './telemetry.ts';
import { contextFromTraceparent, traceLogFields, traceparentOf } from './trace-context.ts';

/** OTEL_* variables that would change what the suite observes; cleared while it runs. */
const OTEL_ENV = [
  'OTEL_SDK_DISABLED',
  'OTEL_SERVICE_NAME',
  'OTEL_EXPORTER_OTLP_ENDPOINT',
  'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
  'OTEL_TRACES_SAMPLER',
  'OTEL_PROPAGATORS',
] as const;
const savedEnv = new Map(OTEL_ENV.map((name) => [name, process.env[name]]));

const GROUP = 'telemetry-test';
const exporter = new InMemorySpanExporter();
const logger = createLogger({ level: 'silent' });
let telemetry: Telemetry;
let platform: EmbeddedPlatform;
let store: TracedEventStore;
let consumer: Consumer;
let server: http.Server;
let baseUrl: string;
const handled: RecordedEvent[] = [];
/** Event ids whose first delivery fails (the bus then retries them). */
const failOnce = new Set<string>();

beforeAll(async () => {
  for (const name of OTEL_ENV) Reflect.deleteProperty(process.env, name);
  telemetry = startTelemetry({
    serviceName: 'telemetry-test',
    logger,
    spanProcessors: [new SimpleSpanProcessor({ exporter })],
  });
  platform = openEmbeddedPlatform({ dataDir: ':memory:', logger, pollMs: 50 });
  store = new TracedEventStore(platform.store);
  consumer = platform.bus.consume({
    groupId: GROUP,
    topics: ['thing'],
    handle: tracedHandler(GROUP, async (event) => {
      if (failOnce.delete(event.id)) throw new Error(`first delivery of ${event.id} fails`);
      handled.push(event);
    }),
  });

  const app = express();
  app.use(express.json());
  app.post('/things/:id', (req, res, next) => {
    store
      .append([
        {
          streamId: `thing-${req.params.id}`,
          expectedRevision: 'no_stream',
          events: [{ type: 'ThingCreated', data: { id: req.params.id } }],
        },
      ])
      .then((result) => {
        res.status(201).json(result);
      }, next);
  });
  server = http.createServer(app);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await consumer.stop();
  await platform.close();
  await telemetry.shutdown();
  for (const [name, value] of savedEnv) {
    if (value !== undefined) process.env[name] = value;
  }
});

/** Finished spans matching `predicate`, waiting up to 5000 ms for at least `count` of them. */
async function spansWhere(
  predicate: (span: ReadableSpan) => boolean,
  count = 1,
): Promise<ReadableSpan[]> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const found = exporter.getFinishedSpans().filter(predicate);
    if (found.length >= count || Date.now() > deadline) return found;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const idOf = (span: ReadableSpan): string => span.spanContext().spanId;
const traceOf = (span: ReadableSpan): string => span.spanContext().traceId;

/** Whether `ancestor` is `span` or one of its parents among the finished spans. */
function descendsFrom(span: ReadableSpan, ancestor: ReadableSpan): boolean {
  const byId = new Map(exporter.getFinishedSpans().map((s) => [idOf(s), s]));
  for (let current: ReadableSpan | undefined = span; current !== undefined;) {
    if (idOf(current) === idOf(ancestor)) return true;
    const parent: string | undefined = current.parentSpanContext?.spanId;
    current = parent === undefined ? undefined : byId.get(parent);
  }
  return false;
}

/** POSTs `/things/:id` and returns the append's position and the event's stream id. */
async function createThing(id: string): Promise<{ position: number; streamId: string }> {
  const response = await fetch(`${baseUrl}/things/${id}`, { method: 'POST' });
  expect(response.status).toBe(201);
  const body = (await response.json()) as { position: number };
  expect(await consumer.waitFor(body.position, 5000)).toBe(true);
  return { position: body.position, streamId: `thing-${id}` };
}

describe('one trace from the HTTP request through the event store and the bus', () => {
  it('links the server span, the append span and the consumer span', async () => {
    const { streamId } = await createThing('one');

    const [serverSpan] = await spansWhere(
      (s) => s.kind === SpanKind.SERVER && s.attributes['url.path'] === '/things/one',
    );
    const [appendSpan] = await spansWhere(
      (s) =>
        s.name === APPEND_SPAN_NAME &&
        (s.attributes['eventstore.stream_ids'] as string[]).includes(streamId),
    );
    const [consumerSpan] = await spansWhere(
      (s) => s.kind === SpanKind.CONSUMER && s.attributes['eventstore.stream_id'] === streamId,
    );
    expect(serverSpan).toBeDefined();
    expect(appendSpan).toBeDefined();
    expect(consumerSpan).toBeDefined();

    expect(serverSpan!.resource.attributes['service.name']).toBe('telemetry-test');
    expect(serverSpan!.attributes['http.request.method']).toBe('POST');
    expect(serverSpan!.attributes['http.response.status_code']).toBe(201);

    expect(traceOf(appendSpan!)).toBe(traceOf(serverSpan!));
    expect(traceOf(consumerSpan!)).toBe(traceOf(serverSpan!));
    expect(descendsFrom(appendSpan!, serverSpan!)).toBe(true);
    expect(consumerSpan!.parentSpanContext?.spanId).toBe(idOf(appendSpan!));
    expect(consumerSpan!.parentSpanContext?.isRemote).toBe(true);

    expect(appendSpan!.kind).toBe(SpanKind.PRODUCER);
    expect(appendSpan!.attributes).toMatchObject({
      'messaging.operation.type': 'send',
      'eventstore.stream_ids': [streamId],
      'eventstore.event_types': ['ThingCreated'],
      'eventstore.event_count': 1,
    });
    expect(consumerSpan!.name).toBe(`${GROUP} process ThingCreated`);
    expect(consumerSpan!.attributes).toMatchObject({
      'messaging.operation.type': 'process',
      'messaging.consumer.group.name': GROUP,
      'messaging.destination.name': 'thing',
    });
    expect(consumerSpan!.status.code).toBe(SpanStatusCode.UNSET);

    const [stored] = await platform.store.readStream(streamId);
    const { traceId, spanId } = appendSpan!.spanContext();
    expect(stored!.metadata.traceparent).toBe(`00-${traceId}-${spanId}-01`);
    expect(handled.find((e) => e.streamId === streamId)?.metadata.traceparent).toBe(
      stored!.metadata.traceparent,
    );
  });

  it('records a failing delivery on its span, and the retry continues the same trace', async () => {
    const streamId = 'thing-flaky';
    failOnce.add('flaky-1');
    const origin = trace.getTracer('test').startSpan('origin');
    await context.with(trace.setSpan(context.active(), origin), async () => {
      await store.append([
        {
          streamId,
          expectedRevision: 'no_stream',
          events: [{ id: 'flaky-1', type: 'ThingCreated', data: {} }],
        },
      ]);
    });
    origin.end();
    const { position } = await platform.store.readStream(streamId).then(([e]) => e!);
    expect(await consumer.waitFor(position, 5000)).toBe(true);

    const deliveries = await spansWhere(
      (s) => s.kind === SpanKind.CONSUMER && s.attributes['eventstore.stream_id'] === streamId,
      2,
    );
    const [appendSpan] = await spansWhere(
      (s) =>
        s.name === APPEND_SPAN_NAME &&
        (s.attributes['eventstore.stream_ids'] as string[]).includes(streamId),
    );
    expect(appendSpan!.parentSpanContext?.spanId).toBe(origin.spanContext().spanId);
    expect(deliveries.map((s) => s.status.code)).toEqual([
      SpanStatusCode.ERROR,
      SpanStatusCode.UNSET,
    ]);
    expect(deliveries[0]!.status.message).toBe('first delivery of flaky-1 fails');
    expect(deliveries[0]!.events.map((e) => e.name)).toEqual(['exception']);
    for (const delivery of deliveries) {
      expect(traceOf(delivery)).toBe(origin.spanContext().traceId);
      expect(delivery.parentSpanContext?.spanId).toBe(idOf(appendSpan!));
    }
  });
});

describe('TracedEventStore', () => {
  it('keeps a traceparent the event already carries', async () => {
    const given = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    await store.append([
      {
        streamId: 'thing-given',
        expectedRevision: 'no_stream',
        events: [
          { type: 'ThingCreated', data: {}, metadata: { traceparent: given, projectId: 'p' } },
          { type: 'ThingRenamed', data: {}, metadata: { projectId: 'p' } },
        ],
      },
    ]);
    const [first, second] = await platform.store.readStream('thing-given');
    expect(first!.metadata).toEqual({ traceparent: given, projectId: 'p' });
    expect(second!.metadata.projectId).toBe('p');
    expect(second!.metadata.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    expect(second!.metadata.traceparent).not.toBe(given);
    const [appendSpan] = await spansWhere(
      (s) =>
        s.name === APPEND_SPAN_NAME &&
        (s.attributes['eventstore.stream_ids'] as string[]).includes('thing-given'),
    );
    expect(appendSpan!.attributes['messaging.batch.message_count']).toBe(2);
    expect(appendSpan!.attributes['eventstore.event_types']).toEqual([
      'ThingCreated',
      'ThingRenamed',
    ]);
  });

  it('records a refused append as an error and rethrows it', async () => {
    await expect(
      store.append([
        {
          streamId: 'thing-given',
          expectedRevision: 'no_stream',
          events: [{ type: 'ThingCreated', data: {} }],
        },
      ]),
    ).rejects.toThrow('expected revision');
    const failed = await spansWhere(
      (s) => s.name === APPEND_SPAN_NAME && s.status.code === SpanStatusCode.ERROR,
    );
    expect(failed).toHaveLength(1);
    expect(failed[0]!.events[0]!.attributes?.['exception.type']).toBe('WrongExpectedRevisionError');
  });
});

describe('tracedBatchHandler', () => {
  it('runs a batch in one span linked to the appends of its events, recording a failure', async () => {
    await store.append([
      {
        streamId: 'thing-batch',
        expectedRevision: 'no_stream',
        events: [
          { type: 'ThingCreated', data: {} },
          { type: 'ThingRenamed', data: {} },
        ],
      },
    ]);
    const events = await platform.store.readStream('thing-batch');
    const seen: number[] = [];
    const handle = tracedBatchHandler('batch-group', async (batch) => {
      seen.push(batch.length);
      if (seen.length === 2) throw new Error('second batch fails');
    });
    await handle(events);
    await expect(handle(events)).rejects.toThrow('second batch fails');
    expect(seen).toEqual([2, 2]);
    const spans = await spansWhere((s) => s.name === 'batch-group process', 2);
    const appendTrace = contextFromTraceparent(events[0]!.metadata.traceparent);
    for (const span of spans) {
      expect(span.attributes['messaging.batch.message_count']).toBe(2);
      expect(span.links.map((link) => link.context.traceId)).toContain(
        trace.getSpanContext(appendTrace)?.traceId,
      );
    }
    expect(spans.map((span) => span.status.code).sort()).toEqual(
      [SpanStatusCode.UNSET, SpanStatusCode.ERROR].sort(),
    );
  });
});

describe('trace context helpers', () => {
  it('round-trips a traceparent and gives nothing outside a span', () => {
    expect(traceparentOf()).toBeUndefined();
    expect(traceLogFields()).toEqual({});
    const given = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const ctx = contextFromTraceparent(given);
    expect(traceparentOf(ctx)).toBe(given);
    const span = trace.getTracer('test').startSpan('child', {}, ctx);
    context.with(trace.setSpan(ctx, span), () => {
      expect(traceLogFields()).toEqual({
        trace_id: '0af7651916cd43dd8448eb211c80319c',
        span_id: span.spanContext().spanId,
        trace_flags: '01',
      });
    });
    span.end();
    expect(traceparentOf(contextFromTraceparent('not-a-traceparent'))).toBeUndefined();
    expect(traceparentOf(contextFromTraceparent(undefined))).toBeUndefined();
  });

  it('refuses a second SDK while one runs', () => {
    expect(() => startTelemetry({ serviceName: 'again' })).toThrow('already running');
  });
});

/** Whether the http instrumentation's wrapper is on `http.Server.prototype.emit`. */
function serverEmitWrapped(): boolean {
  const emit: unknown = Reflect.get(http.Server.prototype, 'emit');
  return typeof emit === 'function' && Reflect.get(emit, '__wrapped') === true;
}

describe('shutdown', () => {
  it('removes the global SDK and the http patch, so other suites see none', async () => {
    expect(serverEmitWrapped()).toBe(true);
    await telemetry.shutdown();
    expect(serverEmitWrapped()).toBe(false);
    const span = trace.getTracer('test').startSpan('after');
    expect(span.isRecording()).toBe(false);
    span.end();
    expect(traceparentOf(contextFromTraceparent(traceparentOf()))).toBeUndefined();
    // A new SDK can start once the previous one is shut down.
    const again = startTelemetry({ serviceName: 'again' });
    expect(again.enabled).toBe(true);
    await again.shutdown();
  });
});
