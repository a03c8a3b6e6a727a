import { Button, Group, TextInput } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';

import { api, ApiError, type Schema, unwrap } from '../../../api/client';
import { useProjectId } from '../../../api/session';
import { ErrorAlert, fieldError } from '../../../components/ErrorAlert';

/**
 * Starts a run of the workflow for one contact, found by email address
 * (`POST /workflows/:id/executions`); the way to run a workflow started by hand.
 */
export function StartRunForm({ workflow }: { workflow: Schema<'Workflow'> }) {
  const projectId = useProjectId();
  const queryClient = useQueryClient();
  const [email, setEmail] = useState('');
  const start = useMutation({
    mutationFn: async () => {
      const wanted = email.trim().toLowerCase();
      const found = await unwrap(
        api.GET('/contacts', { params: { query: { search: wanted, limit: 100 } } }),
      );
      const contact = found.data.find((item) => item.email.toLowerCase() === wanted);
      if (contact === undefined) {
        throw new ApiError(404, 'CONTACT_NOT_FOUND', `No contact has the address ${email.trim()}`);
      }
      return unwrap(
        api.POST('/workflows/{id}/executions', {
          params: { path: { id: workflow.id } },
          body: { contactId: contact.id },
        }),
      );
    },
    onSuccess: async () => {
      setEmail('');
      await queryClient.invalidateQueries({
        queryKey: [projectId, 'workflows', workflow.id, 'executions'],
      });
    },
  });
  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        start.mutate();
      }}
    >
      <Group gap="sm" align="flex-end">
        <TextInput
          label="Start a run for a contact"
          placeholder="someone@example.com"
          type="email"
          required
          value={email}
          onChange={(event) => setEmail(event.currentTarget.value)}
          error={fieldError(start.error, 'contactId')}
          w={320}
        />
        <Button type="submit" variant="light" loading={start.isPending}>
          Start run
        </Button>
      </Group>
      <ErrorAlert error={start.error} title="The run could not be started" />
    </form>
  );
}
