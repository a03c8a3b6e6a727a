import type { RouteObject } from 'react-router';

/** The overview is a project's first page. */
export const routes: RouteObject[] = [
  { index: true, lazy: async () => ({ Component: (await import('./OverviewPage')).default }) },
];
