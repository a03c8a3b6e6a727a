import type { RouteObject } from 'react-router';

/** The sender domains of a project. */
export const routes: RouteObject[] = [
  { path: 'domains', lazy: async () => ({ Component: (await import('./DomainsPage')).default }) },
];
