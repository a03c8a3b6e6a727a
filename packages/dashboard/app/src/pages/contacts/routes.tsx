import type { RouteObject } from 'react-router';

/** The contacts of a project: the list, the CSV import and one contact. */
export const routes: RouteObject[] = [
  {
    path: 'contacts',
    lazy: async () => ({ Component: (await import('./ContactsPage')).default }),
  },
  {
    path: 'contacts/import',
    lazy: async () => ({ Component: (await import('./ImportPage')).default }),
  },
  {
    path: 'contacts/:contactId',
    lazy: async () => ({ Component: (await import('./ContactPage')).default }),
  },
];
