/** One contact (`GET /contacts/:id`) and its changes (`PATCH /contacts/:id`), cached together. */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';

import { api, type Schema, unwrap } from '../../api/client';
import type { paths } from '../../api/schema';
import { useProjectId } from '../../api/session';

/** The body of `PATCH /contacts/:id`. */
export type ContactPatch =
  paths['/contacts/{id}']['patch']['requestBody']['content']['application/json'];

/** The contact `contactId`. */
export function useContact(contactId: string) {
  const projectId = useProjectId();
  return useQuery({
    queryKey: [projectId, 'contacts', 'detail', contactId],
    queryFn: () => unwrap(api.GET('/contacts/{id}', { params: { path: { id: contactId } } })),
  });
}

/**
 * A change of the contact `contactId`: its answer replaces the cached contact; the lists and the
 * activity (a subscription change is activity) are read again.
 */
export function useUpdateContact(contactId: string) {
  const projectId = useProjectId();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (patch: ContactPatch) =>
      unwrap(api.PATCH('/contacts/{id}', { params: { path: { id: contactId } }, body: patch })),
    onSuccess: async (contact: Schema<'Contact'>) => {
      queryClient.setQueryData([projectId, 'contacts', 'detail', contactId], contact);
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: [projectId, 'contacts', 'list'] }),
        queryClient.invalidateQueries({ queryKey: [projectId, 'activity'] }),
      ]);
    },
  });
}
