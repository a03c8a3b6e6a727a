import type { RouteObject } from 'react-router';

/** Email analytics of a project (its charts load with this page only). */
export const routes: RouteObject[] = [
  {
    path: 'analytics',
    lazy: async () => ({ Component: (await import('./AnalyticsPage')).default }),
  },
];
