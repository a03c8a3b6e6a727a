import type { RouteObject } from 'react-router';

/**
 * A project's settings, one tab per sub-route: project, keys, members, billing, suppressions
 * (`settings` alone opens the first).
 */
export const routes: RouteObject[] = [
  {
    path: 'settings',
    lazy: async () => ({ Component: (await import('./SettingsLayout')).default }),
    children: [
      {
        path: 'project',
        lazy: async () => ({ Component: (await import('./ProjectTab')).default }),
      },
      { path: 'keys', lazy: async () => ({ Component: (await import('./KeysTab')).default }) },
      {
        path: 'members',
        lazy: async () => ({ Component: (await import('./MembersTab')).default }),
      },
      {
        path: 'billing',
        lazy: async () => ({ Component: (await import('./BillingTab')).default }),
      },
      {
        path: 'suppressions',
        lazy: async () => ({ Component: (await import('./SuppressionsTab')).default }),
      },
    ],
  },
];
