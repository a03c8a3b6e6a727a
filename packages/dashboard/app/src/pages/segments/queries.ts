/** The data of the segment pages, cached under `[projectId, 'segments', …]`. */
import { useQuery } from '@tanstack/react-query';

import { api, unwrap } from '../../api/client';
import { useProjectId } from '../../api/session';

/** Every segment of the project (`GET /segments`, not paginated). */
export function useSegments() {
  const projectId = useProjectId();
  return useQuery({
    queryKey: [projectId, 'segments'],
    queryFn: () => unwrap(api.GET('/segments')),
  });
}

/** One segment with its cached member count (`GET /segments/:id`). */
export function useSegment(id: string) {
  const projectId = useProjectId();
  return useQuery({
    queryKey: [projectId, 'segments', id],
    queryFn: () => unwrap(api.GET('/segments/{id}', { params: { path: { id } } })),
  });
}

/** One page of a segment's members (`GET /segments/:id/contacts`, live for dynamic segments). */
export function useSegmentMembers(id: string, page: number, pageSize: number) {
  const projectId = useProjectId();
  return useQuery({
    queryKey: [projectId, 'segments', id, 'contacts', page, pageSize],
    queryFn: () =>
      unwrap(
        api.GET('/segments/{id}/contacts', {
          params: { path: { id }, query: { page, pageSize } },
        }),
      ),
    placeholderData: (previous) => previous,
  });
}
