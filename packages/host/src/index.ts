export * from './config.ts';
export * from './platform.ts';
export * from './process.ts';
export * from './remote.ts';
export * from './service.ts';
