import { type Attributes, SpanKind, trace } from '@opentelemetry/api';

import type {
  AppendListener,
  AppendResult,
  EventStore,
  NewEvent,
  ReadAllOptions,
  RecordedEvent,
  StreamAppend,
} from '../event-store/event-store.ts';
import { recordSpanError, TRACER_NAME, traceparentOf } from './trace-context.ts';

/** Name of the span of {@link TracedEventStore.append}. */
export const APPEND_SPAN_NAME = 'eventstore.append';

/** Value of `messaging.system` on the platform's spans: the event log is the message log. */
export const MESSAGING_SYSTEM = 'stamp.eventstore';

/**
 * Tracing decorator of an {@link EventStore}. `append` runs in a PRODUCER span named
 * `eventstore.append` and stamps every appended event that has no `metadata.traceparent` with the
 * W3C `traceparent` of that span, so the relay, the bus and the consumers continue the trace of
 * the request that caused the event. Every other method delegates unchanged.
 *
 * Span kind: the append is the "send" of the messaging semantic conventions (the log is what
 * the bus delivers, and the span's context is injected into each message for the consumers to
 * parent on), so PRODUCER rather than CLIENT (a database call whose context travels nowhere) or
 * INTERNAL. Attributes: `messaging.system`, `messaging.operation.type` (`send`),
 * `messaging.operation.name` (`append`), `messaging.batch.message_count` (events, when more than
 * one), `eventstore.stream_ids`, `eventstore.event_types` (distinct, in order),
 * `eventstore.event_count`, then `eventstore.position` (the last event's) on success. A failed
 * append records the exception and sets ERROR status; the error is rethrown unchanged.
 */
export class TracedEventStore implements EventStore {
  private readonly inner: EventStore;

  constructor(inner: EventStore) {
    this.inner = inner;
  }

  append(streams: readonly StreamAppend[]): Promise<AppendResult> {
    const tracer = trace.getTracer(TRACER_NAME);
    return tracer.startActiveSpan(
      APPEND_SPAN_NAME,
      { kind: SpanKind.PRODUCER, attributes: appendAttributes(streams) },
      async (span) => {
        try {
          const traceparent = traceparentOf();
          const stamped =
            traceparent === undefined ? streams : streams.map((s) => stamp(s, traceparent));
          const result = await this.inner.append(stamped);
          span.setAttribute('eventstore.position', result.position);
          return result;
        } catch (error) {
          recordSpanError(span, error);
          throw error;
        } finally {
          span.end();
        }
      },
    );
  }

  readStream(streamId: string, fromRevision?: number, maxCount?: number): Promise<RecordedEvent[]> {
    return this.inner.readStream(streamId, fromRevision, maxCount);
  }

  readAll(options: ReadAllOptions): Promise<RecordedEvent[]> {
    return this.inner.readAll(options);
  }

  headPosition(): Promise<number> {
    return this.inner.headPosition();
  }

  eraseSubject(subjectId: string): Promise<void> {
    return this.inner.eraseSubject(subjectId);
  }

  deleteStream(streamId: string): Promise<void> {
    return this.inner.deleteStream(streamId);
  }

  onAppend(listener: AppendListener): () => void {
    return this.inner.onAppend(listener);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

/** Span attributes of an append (see {@link TracedEventStore}). */
function appendAttributes(streams: readonly StreamAppend[]): Attributes {
  const types = new Set<string>();
  let count = 0;
  for (const stream of streams) {
    for (const event of stream.events) {
      types.add(event.type);
      count += 1;
    }
  }
  const attributes: Attributes = {
    'messaging.system': MESSAGING_SYSTEM,
    'messaging.operation.type': 'send',
    'messaging.operation.name': 'append',
    'eventstore.stream_ids': streams.map((stream) => stream.streamId),
    'eventstore.event_types': [...types],
    'eventstore.event_count': count,
  };
  if (count > 1) attributes['messaging.batch.message_count'] = count;
  return attributes;
}

/** The stream's events, each with `traceparent` in its metadata unless it already has one. */
function stamp(stream: StreamAppend, traceparent: string): StreamAppend {
  return {
    ...stream,
    events: stream.events.map((event): NewEvent =>
      event.metadata?.traceparent === undefined
        ? { ...event, metadata: { ...event.metadata, traceparent } }
        : event,
    ),
  };
}
