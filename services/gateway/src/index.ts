export * from './app.ts';
export * from './auth.ts';
export * from './listen.ts';
