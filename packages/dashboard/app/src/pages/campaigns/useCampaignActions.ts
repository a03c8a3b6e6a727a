import { useMutation, useQueryClient } from '@tanstack/react-query';

import { api, type Schema, unwrap } from '../../api/client';
import { useProjectId } from '../../api/session';
import { type CampaignDraft, campaignBodyOf } from './draft';

/**
 * What can be done to campaign `id`: save its fields, send it now or at a time, cancel,
 * duplicate, delete it, or send a test. Each refreshes the project's campaigns.
 */
export function useCampaignActions(id: string) {
  const projectId = useProjectId();
  const queryClient = useQueryClient();
  const path = { params: { path: { id } } };
  const refresh = async (campaign?: Schema<'Campaign'>) => {
    if (campaign !== undefined) queryClient.setQueryData([projectId, 'campaigns', id], campaign);
    await queryClient.invalidateQueries({ queryKey: [projectId, 'campaigns'] });
  };
  const save = (draft: CampaignDraft) =>
    unwrap(api.PUT('/campaigns/{id}', { ...path, body: campaignBodyOf(draft) }));

  return {
    save: useMutation({ mutationFn: save, onSuccess: refresh }),
    /** Saves `draft` first when given (unsaved changes), then sends at `scheduledFor` or now. */
    send: useMutation({
      mutationFn: async ({
        draft,
        scheduledFor,
      }: {
        draft?: CampaignDraft | undefined;
        scheduledFor?: string | undefined;
      }) => {
        if (draft !== undefined) await save(draft);
        return unwrap(
          api.POST('/campaigns/{id}/send', {
            ...path,
            body: scheduledFor === undefined ? {} : { scheduledFor },
          }),
        );
      },
      onSuccess: refresh,
    }),
    cancel: useMutation({
      mutationFn: () => unwrap(api.POST('/campaigns/{id}/cancel', path)),
      onSuccess: refresh,
    }),
    duplicate: useMutation({
      mutationFn: () => unwrap(api.POST('/campaigns/{id}/duplicate', path)),
      onSuccess: () => refresh(),
    }),
    remove: useMutation({
      mutationFn: () => unwrap(api.DELETE('/campaigns/{id}', path)),
      onSuccess: async () => {
        queryClient.removeQueries({ queryKey: [projectId, 'campaigns', id] });
        await queryClient.invalidateQueries({ queryKey: [projectId, 'campaigns'], exact: true });
      },
    }),
    /** Saves `draft` first when given, then sends the campaign once to `email`. */
    test: useMutation({
      mutationFn: async ({
        draft,
        email,
      }: {
        draft?: CampaignDraft | undefined;
        email: string;
      }) => {
        if (draft !== undefined) await refresh(await save(draft));
        return unwrap(api.POST('/campaigns/{id}/test', { ...path, body: { email } }));
      },
    }),
  };
}
