/**
 * Adapters of the distributed mode (architecture brief, "Two modes"): the Kafka bus and the
 * relay publishing the log to it, MongoDB views, checkpoints and leases, and the KurrentDB event
 * store. Imported by the processes of the distributed mode only: their clients are large.
 */
export * from './bus/envelope.ts';
export * from './bus/kafka.ts';
export * from './bus/kafka-bus.ts';
export * from './bus/mongo-checkpoint-store.ts';
export * from './event-store/kurrentdb-event-store.ts';
export * from './relay/relay.ts';
export * from './timers/mongo-leases.ts';
export * from './views/mongo-view-store.ts';
