import type { RouteObject } from 'react-router';

/** The campaigns of a project: the list, a new one, and one campaign (editor or numbers). */
export const routes: RouteObject[] = [
  {
    path: 'campaigns',
    lazy: async () => ({ Component: (await import('./CampaignsPage')).default }),
  },
  {
    path: 'campaigns/new',
    lazy: async () => ({ Component: (await import('./NewCampaignPage')).default }),
  },
  {
    path: 'campaigns/:campaignId',
    lazy: async () => ({ Component: (await import('./CampaignPage')).default }),
  },
];
