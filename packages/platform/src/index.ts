/**
 * The platform's ports and embedded adapters. The adapters of the distributed mode (Kafka,
 * MongoDB, KurrentDB, the relay) are exported by `@stamp/platform/distributed.ts`, so a process
 * on the embedded adapters never loads their clients.
 */
export * from './bounded-cache.ts';
export * from './bus/bus.ts';
export * from './bus/checkpoint-store.ts';
export * from './bus/log-bus.ts';
export * from './config.ts';
export * from './embedded.ts';
export * from './event-store/event-store.ts';
export * from './event-store/retry.ts';
export * from './event-store/stream-commands.ts';
export * from './event-store/sqlite-event-store.ts';
export * from './heap.ts';
export * from './ids.ts';
export * from './logger.ts';
export * from './mailer/mailer.ts';
export * from './mailer/outbox-mailer.ts';
export * from './mailer/smtp-mailer.ts';
export * from './resolver/resolver.ts';
export * from './sqlite/database.ts';
export * from './timers/leases.ts';
export * from './timers/timers.ts';
export * from './views/apply-at-revision.ts';
export * from './views/sqlite-view-store.ts';
export * from './views/view-store.ts';
export * from './secrets.ts';
export * from './templating/liquid.ts';
export * from './webhook/call.ts';
// The SDK itself (startTelemetry, ~350 ms to load) is imported from its own path by entry points.
export type { Telemetry, TelemetryOptions } from './telemetry/telemetry.ts';
export * from './telemetry/trace-context.ts';
export * from './telemetry/traced-event-store.ts';
export * from './telemetry/traced-handler.ts';
