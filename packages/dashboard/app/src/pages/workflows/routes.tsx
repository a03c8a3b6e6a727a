import type { RouteObject } from 'react-router';

/** Workflows: the list, a new workflow, and one workflow's editor and executions. */
export const routes: RouteObject[] = [
  {
    path: 'workflows',
    lazy: async () => ({ Component: (await import('./WorkflowsPage')).default }),
  },
  {
    path: 'workflows/new',
    lazy: async () => ({ Component: (await import('./NewWorkflowPage')).default }),
  },
  {
    path: 'workflows/:workflowId',
    lazy: async () => ({ Component: (await import('./WorkflowPage')).default }),
  },
];
