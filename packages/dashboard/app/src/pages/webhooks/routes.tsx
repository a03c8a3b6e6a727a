import type { RouteObject } from 'react-router';

/** The webhook endpoints of a project and the delivery log of each. */
export const routes: RouteObject[] = [
  { path: 'webhooks', lazy: async () => ({ Component: (await import('./WebhooksPage')).default }) },
  {
    path: 'webhooks/:endpointId',
    lazy: async () => ({ Component: (await import('./EndpointPage')).default }),
  },
];
