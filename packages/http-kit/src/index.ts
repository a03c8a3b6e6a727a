export * from './caller.ts';
export * from './errors.ts';
export * from './module.ts';
export * from './pagination.ts';
export * from './envelope.ts';
