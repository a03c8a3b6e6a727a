import type { RouteObject } from 'react-router';

/** The templates of a project: the list and the editor (new or saved). */
export const routes: RouteObject[] = [
  {
    path: 'templates',
    lazy: async () => ({ Component: (await import('./TemplatesPage')).default }),
  },
  {
    path: 'templates/new',
    lazy: async () => ({ Component: (await import('./TemplateEditorPage')).default }),
  },
  {
    path: 'templates/:templateId',
    lazy: async () => ({ Component: (await import('./TemplateEditorPage')).default }),
  },
];
