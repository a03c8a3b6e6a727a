import type { RouteObject } from 'react-router';

/** The local outbox: the list of captured messages and one message. */
export const routes: RouteObject[] = [
  {
    path: 'outbox',
    lazy: async () => ({ Component: (await import('./OutboxPage')).default }),
  },
  {
    path: 'outbox/:emailId',
    lazy: async () => ({ Component: (await import('./OutboxMessagePage')).default }),
  },
];
