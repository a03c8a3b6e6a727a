export * from './app.ts';
export * from './auth.ts';
export { listen, type ListeningServer } from '@stamp/http-kit';
export * from './openapi.ts';
