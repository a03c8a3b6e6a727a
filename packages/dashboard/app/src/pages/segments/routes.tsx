import type { RouteObject } from 'react-router';

/** Segments: the list, a new segment, and one segment with its members. */
export const routes: RouteObject[] = [
  {
    path: 'segments',
    lazy: async () => ({ Component: (await import('./SegmentsPage')).default }),
  },
  {
    path: 'segments/new',
    lazy: async () => ({ Component: (await import('./NewSegmentPage')).default }),
  },
  {
    path: 'segments/:segmentId',
    lazy: async () => ({ Component: (await import('./SegmentPage')).default }),
  },
];
