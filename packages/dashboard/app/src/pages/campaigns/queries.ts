/** The data of the campaign pages, cached under `[projectId, 'campaigns', …]`. */
import { useQuery } from '@tanstack/react-query';

import { api, unwrap } from '../../api/client';
import { useProjectId } from '../../api/session';

/** The project's campaigns, newest first (`GET /campaigns`, not paginated). */
export function useCampaigns() {
  const projectId = useProjectId();
  return useQuery({
    queryKey: [projectId, 'campaigns'],
    queryFn: () => unwrap(api.GET('/campaigns')),
    // A campaign that is sending or about to changes on its own.
    refetchInterval: (query) =>
      query.state.data?.some((item) => item.status === 'SENDING' || item.status === 'SCHEDULED')
        ? 5_000
        : false,
  });
}

/**
 * One campaign (`GET /campaigns/:id`), read again every 2 s while it sends and every 5 s while
 * it waits for its time, so that its status follows.
 */
export function useCampaign(id: string) {
  const projectId = useProjectId();
  return useQuery({
    queryKey: [projectId, 'campaigns', id],
    queryFn: () => unwrap(api.GET('/campaigns/{id}', { params: { path: { id } } })),
    refetchInterval: (query) => {
      const status = query.state.data?.status;
      return status === 'SENDING' ? 2_000 : status === 'SCHEDULED' ? 5_000 : false;
    },
  });
}

/**
 * A campaign's counts and rates (`GET /campaigns/:id/stats`), read again every 2 s while it
 * sends (`sending`) and while some of its emails still wait in the queue.
 */
export function useCampaignStats(id: string, sending: boolean) {
  const projectId = useProjectId();
  return useQuery({
    queryKey: [projectId, 'campaigns', id, 'stats'],
    queryFn: () => unwrap(api.GET('/campaigns/{id}/stats', { params: { path: { id } } })),
    refetchInterval: (query) => (sending || (query.state.data?.queued ?? 0) > 0 ? 2_000 : false),
  });
}

/** The project's segments (`GET /segments`, oldest first). */
export function useSegmentChoices() {
  const projectId = useProjectId();
  return useQuery({
    queryKey: [projectId, 'segments'],
    queryFn: () => unwrap(api.GET('/segments')),
  });
}

/** The first 100 templates of the project by name, to pick one (`GET /templates`). */
export function useTemplateChoices() {
  const projectId = useProjectId();
  return useQuery({
    queryKey: [projectId, 'templates', 'list', 'choices'],
    queryFn: () =>
      unwrap(
        api.GET('/templates', { params: { query: { limit: 100, sort: 'name', dir: 'asc' } } }),
      ),
  });
}

/** How many subscribed contacts the project has (`GET /contacts?subscribed=true`, its `total`). */
export function useSubscribedCount(enabled: boolean) {
  const projectId = useProjectId();
  return useQuery({
    queryKey: [projectId, 'contacts', 'count', { subscribed: true }],
    queryFn: async () =>
      (await unwrap(api.GET('/contacts', { params: { query: { subscribed: 'true', limit: 1 } } })))
        .total,
    enabled,
  });
}
