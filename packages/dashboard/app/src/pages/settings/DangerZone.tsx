import { Card, Group, Stack, Text, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useNavigate } from 'react-router';

import { api, unwrap } from '../../api/client';
import { useProjectId } from '../../api/session';
import { ErrorAlert } from '../../components/ErrorAlert';
import { useGuard } from './RoleNote';
import { TypedConfirmButton } from './TypedConfirmButton';
import { useProject } from './useProject';

/** Resetting the project's data and deleting the project (OWNER only), each typed to confirm. */
export function DangerZone() {
  const projectId = useProjectId();
  const project = useProject();
  const name = project?.name ?? '';
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const resetGuard = useGuard('project.reset', 'reset the project');
  const deleteGuard = useGuard('project.delete', 'delete the project');
  const reset = useMutation({
    mutationFn: () =>
      unwrap(api.POST('/users/@me/projects/{id}/reset', { params: { path: { id: projectId } } })),
    // Every list of the project empties within seconds.
    onSuccess: () => queryClient.invalidateQueries({ queryKey: [projectId] }),
  });
  const remove = useMutation({
    mutationFn: () =>
      unwrap(api.DELETE('/users/@me/projects/{id}', { params: { path: { id: projectId } } })),
    onSuccess: async () => {
      queryClient.removeQueries({ queryKey: [projectId] });
      await queryClient.invalidateQueries({ queryKey: ['projects'] });
      void navigate('/');
    },
  });
  return (
    <Card withBorder component="section" aria-labelledby="danger-title">
      <Title order={2} size="h4" mb="sm" id="danger-title">
        Reset or delete
      </Title>
      <Stack>
        <div>
          <Group justify="space-between" align="flex-start">
            <Text size="sm" maw={560}>
              Resetting erases every contact, template, campaign, segment, workflow, event, email
              and activity of the project. Keys, members, settings, domains, webhook endpoints and
              suppressions stay. This cannot be undone.
            </Text>
            <TypedConfirmButton
              variant="light"
              title="Reset the project?"
              message="Every contact, template, campaign, segment, workflow, event, email and activity of this project is erased. This cannot be undone."
              expected={name}
              confirmLabel="Erase the data"
              onConfirm={() => reset.mutate()}
              loading={reset.isPending}
              disabled={!resetGuard.allowed || name === ''}
              aria-describedby={resetGuard.describedBy}
            >
              Reset project
            </TypedConfirmButton>
          </Group>
          {resetGuard.note}
          {reset.isSuccess && (
            <Text size="sm" role="status" mt="xs">
              The project is being reset: its data disappears within a few seconds.
            </Text>
          )}
          <ErrorAlert error={reset.error} title="The project was not reset" />
        </div>
        <div>
          <Group justify="space-between" align="flex-start">
            <Text size="sm" maw={560}>
              Deleting the project stops its keys at once and removes it for every member.
            </Text>
            <TypedConfirmButton
              title="Delete the project?"
              message="Its API keys stop working at once and every member loses access. This cannot be undone."
              expected={name}
              confirmLabel="Delete the project"
              onConfirm={() => remove.mutate()}
              loading={remove.isPending}
              disabled={!deleteGuard.allowed || name === ''}
              aria-describedby={deleteGuard.describedBy}
            >
              Delete project
            </TypedConfirmButton>
          </Group>
          {deleteGuard.note}
          <ErrorAlert error={remove.error} title="The project was not deleted" />
        </div>
      </Stack>
    </Card>
  );
}
