import {
  Autocomplete,
  Button,
  Card,
  Checkbox,
  Group,
  Stack,
  Textarea,
  TextInput,
} from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useNavigate } from 'react-router';

import { api, unwrap } from '../../api/client';
import { useProjectId } from '../../api/session';
import { ErrorAlert, fieldError } from '../../components/ErrorAlert';
import { PageHeader } from '../../components/PageHeader';
import { projectPath } from '../../shell/navigation';
import { useEventNames } from './queries';

/**
 * `/p/:projectId/workflows/new`: names a workflow and the event that starts it, then opens its
 * editor.
 */
export default function NewWorkflowPage() {
  const projectId = useProjectId();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const eventNames = useEventNames();
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [eventName, setEventName] = useState('');
  const [allowReentry, setAllowReentry] = useState(false);
  const create = useMutation({
    mutationFn: () =>
      unwrap(
        api.POST('/workflows', {
          body: {
            name: name.trim(),
            description: description.trim() === '' ? null : description.trim(),
            eventName: eventName.trim(),
            allowReentry,
          },
        }),
      ),
    onSuccess: async (workflow) => {
      queryClient.setQueryData([projectId, 'workflows', workflow.id], workflow);
      await queryClient.invalidateQueries({ queryKey: [projectId, 'workflows'] });
      void navigate(projectPath(projectId, `workflows/${workflow.id}`));
    },
  });
  return (
    <>
      <PageHeader
        title="New workflow"
        description="A workflow starts when an event is tracked for a contact, then runs its steps."
      />
      <Card withBorder maw={720}>
        <form
          onSubmit={(event) => {
            event.preventDefault();
            create.mutate();
          }}
        >
          <Stack gap="sm">
            <TextInput
              label="Name"
              required
              maxLength={255}
              value={name}
              onChange={(event) => setName(event.currentTarget.value)}
              error={fieldError(create.error, 'name')}
            />
            <Textarea
              label="Description"
              description="Optional: what the workflow is for."
              autosize
              minRows={2}
              value={description}
              onChange={(event) => setDescription(event.currentTarget.value)}
              error={fieldError(create.error, 'description')}
            />
            <Autocomplete
              label="Event that starts it"
              description="The name of an event your app tracks, such as signed-up."
              required
              maxLength={255}
              data={eventNames.data ?? []}
              value={eventName}
              onChange={setEventName}
              error={fieldError(create.error, 'eventName')}
            />
            <Checkbox
              label="Let a contact go through it more than once"
              checked={allowReentry}
              onChange={(event) => setAllowReentry(event.currentTarget.checked)}
            />
            <ErrorAlert error={create.error} title="The workflow could not be created" />
            <Group>
              <Button type="submit" loading={create.isPending}>
                Create workflow
              </Button>
              <Button variant="default" component={Link} to={projectPath(projectId, 'workflows')}>
                Cancel
              </Button>
            </Group>
          </Stack>
        </form>
      </Card>
    </>
  );
}
