export * from './caller.ts';
export * from './errors.ts';
export * from './module.ts';
export * from './pagination.ts';
export * from './envelope.ts';
export * from './idempotency.ts';
export * from './rate-limit.ts';
export * from './request-logger.ts';
