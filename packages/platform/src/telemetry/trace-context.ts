/**
 * Trace context helpers shared by the platform's tracing (event store, bus handlers, Kafka
 * relay and consumers). Light: they need only `@opentelemetry/api` and the W3C propagator, and
 * do nothing (return undefined / empty) when no SDK runs.
 */
import {
  type Context,
  context,
  defaultTextMapGetter,
  defaultTextMapSetter,
  ROOT_CONTEXT,
  type Span,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';

/** Name of the tracer (instrumentation scope) of the platform's own spans. */
export const TRACER_NAME = '@stamp/platform';

const w3c = new W3CTraceContextPropagator();

/**
 * The W3C `traceparent` of a context's span (`00-<32 hex trace id>-<16 hex span id>-<2 hex
 * flags>`, W3C Trace Context §3.2), or undefined when the context holds no valid span (no SDK,
 * or tracing suppressed). `ctx` defaults to the active context. For Kafka headers and event
 * metadata.
 */
export function traceparentOf(ctx: Context = context.active()): string | undefined {
  const carrier: Record<string, string> = {};
  w3c.inject(ctx, carrier, defaultTextMapSetter);
  return carrier.traceparent;
}

/**
 * A context whose remote parent span is the one a W3C `traceparent` names (W3C Trace Context
 * §3.2), built on `base` (default: the root context, so an event's trace never mixes with the
 * consumer loop's). An absent or malformed `traceparent` gives `base` unchanged.
 */
export function contextFromTraceparent(
  traceparent: string | undefined,
  base: Context = ROOT_CONTEXT,
): Context {
  if (traceparent === undefined) return base;
  return w3c.extract(base, { traceparent }, defaultTextMapGetter);
}

/**
 * Trace fields for a log line of the active span: `{trace_id, span_id, trace_flags}` (hex), or
 * `{}` outside a span. Pass as pino's `mixin` so logs carry trace ids.
 */
export function traceLogFields(): { trace_id?: string; span_id?: string; trace_flags?: string } {
  const span = trace.getActiveSpan();
  if (span === undefined) return {};
  const { traceId, spanId, traceFlags } = span.spanContext();
  if (!trace.isSpanContextValid(span.spanContext())) return {};
  return {
    trace_id: traceId,
    span_id: spanId,
    trace_flags: traceFlags.toString(16).padStart(2, '0'),
  };
}

/**
 * Marks `span` as failed by `error`: an `exception` event (type, message, stack) and ERROR
 * status with the error's message (OpenTelemetry semantic conventions, "Recording errors").
 */
export function recordSpanError(span: Span, error: unknown): void {
  const message = error instanceof Error ? error.message : String(error);
  span.recordException(error instanceof Error ? error : message);
  span.setStatus({ code: SpanStatusCode.ERROR, message });
}
