import type { RouteObject } from 'react-router';

/** The activity feed of a project. */
export const routes: RouteObject[] = [
  {
    path: 'activity',
    lazy: async () => ({ Component: (await import('./ActivityPage')).default }),
  },
];
