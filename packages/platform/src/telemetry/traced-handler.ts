import { type Link, type Span, SpanKind, trace } from '@opentelemetry/api';

import type { BatchHandler, EventHandler } from '../bus/bus.ts';
import { streamCategory } from '../event-store/event-store.ts';
import { MESSAGING_SYSTEM } from './traced-event-store.ts';
import { contextFromTraceparent, recordSpanError, TRACER_NAME } from './trace-context.ts';

/**
 * Wraps a bus {@link EventHandler} of consumer group `groupId` so each delivery runs in a
 * CONSUMER span named `<groupId> process <event.type>` (messaging semantic conventions, "process"
 * operation). Its parent is the span named by the event's `metadata.traceparent` (the append
 * that wrote it, see `TracedEventStore`), so the handling joins the trace of the request that
 * caused the event; an event without one starts a new trace. Spans made by the handler (its own
 * appends included) are children of this span.
 *
 * Attributes: `messaging.system`, `messaging.operation.type` (`process`),
 * `messaging.consumer.group.name`, `messaging.destination.name` (the topic: the stream's
 * category), `messaging.message.id` (event id), `eventstore.stream_id`, `eventstore.revision`,
 * `eventstore.position`, `eventstore.event_type`. A throwing handler records the exception and
 * sets ERROR status, and the error is rethrown so the bus retries (each attempt is a span).
 */
export function tracedHandler(groupId: string, handler: EventHandler): EventHandler {
  return (event) => {
    const tracer = trace.getTracer(TRACER_NAME);
    return tracer.startActiveSpan(
      `${groupId} process ${event.type}`,
      {
        kind: SpanKind.CONSUMER,
        attributes: {
          'messaging.system': MESSAGING_SYSTEM,
          'messaging.operation.type': 'process',
          'messaging.operation.name': 'process',
          'messaging.consumer.group.name': groupId,
          'messaging.destination.name': streamCategory(event.streamId),
          'messaging.message.id': event.id,
          'eventstore.stream_id': event.streamId,
          'eventstore.revision': event.revision,
          'eventstore.position': event.position,
          'eventstore.event_type': event.type,
        },
      },
      contextFromTraceparent(event.metadata.traceparent),
      (span) => ending(span, () => handler(event)),
    );
  };
}

/** Runs `work` in `span`, recording its error (rethrown), and ends the span. */
async function ending(span: Span, work: () => Promise<void>): Promise<void> {
  try {
    await work();
  } catch (error) {
    recordSpanError(span, error);
    throw error;
  } finally {
    span.end();
  }
}

/**
 * Wraps a {@link BatchHandler} of consumer group `groupId` so each batch runs in one CONSUMER
 * span `<groupId> process` (messaging semantic conventions for batches: no parent, a link to the
 * span of every append named by an event's `metadata.traceparent`), with
 * `messaging.batch.message_count`. A throwing handler records the exception and sets ERROR status;
 * the error is rethrown so the bus retries.
 */
export function tracedBatchHandler(groupId: string, handler: BatchHandler): BatchHandler {
  return (events) => {
    const tracer = trace.getTracer(TRACER_NAME);
    const links: Link[] = [];
    for (const event of events) {
      const parent = trace.getSpanContext(contextFromTraceparent(event.metadata.traceparent));
      if (parent !== undefined) links.push({ context: parent });
    }
    return tracer.startActiveSpan(
      `${groupId} process`,
      {
        kind: SpanKind.CONSUMER,
        root: true,
        links,
        attributes: {
          'messaging.system': MESSAGING_SYSTEM,
          'messaging.operation.type': 'process',
          'messaging.operation.name': 'process',
          'messaging.consumer.group.name': groupId,
          'messaging.batch.message_count': events.length,
        },
      },
      (span) => ending(span, () => handler(events)),
    );
  };
}
