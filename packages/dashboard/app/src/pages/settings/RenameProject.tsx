import { Button, Card, Group, Stack, Text, TextInput, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';

import { api, unwrap } from '../../api/client';
import { useProjectId } from '../../api/session';
import { ErrorAlert, fieldError } from '../../components/ErrorAlert';
import { useGuard } from './RoleNote';
import { useProject } from './useProject';

/** The project's name, changed with `PATCH /users/@me/projects/:id`. */
export function RenameProject() {
  const projectId = useProjectId();
  const project = useProject();
  const queryClient = useQueryClient();
  const guard = useGuard('project.update', 'rename the project');
  const [name, setName] = useState<string | null>(null);
  const value = name ?? project?.name ?? '';
  const rename = useMutation({
    mutationFn: () =>
      unwrap(
        api.PATCH('/users/@me/projects/{id}', {
          params: { path: { id: projectId } },
          body: { name: value.trim() },
        }),
      ),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: ['projects'] });
      setName(null);
    },
  });
  return (
    <Card withBorder component="section" aria-labelledby="project-name-title">
      <Title order={2} size="h4" mb="sm" id="project-name-title">
        Name
      </Title>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          rename.mutate();
        }}
      >
        <Stack gap="xs">
          <ErrorAlert error={rename.error} title="The name was not changed" />
          <Group align="flex-end">
            <TextInput
              label="Project name"
              required
              maxLength={100}
              value={value}
              onChange={(event) => setName(event.currentTarget.value)}
              error={fieldError(rename.error, 'name')}
              disabled={!guard.allowed}
              aria-describedby={guard.describedBy}
              w={320}
            />
            <Button
              type="submit"
              loading={rename.isPending}
              disabled={!guard.allowed || value.trim() === '' || value === project?.name}
            >
              Rename
            </Button>
          </Group>
          {guard.note}
          {rename.isSuccess && (
            <Text size="sm" role="status">
              The project is now called {rename.data.name}.
            </Text>
          )}
        </Stack>
      </form>
    </Card>
  );
}
