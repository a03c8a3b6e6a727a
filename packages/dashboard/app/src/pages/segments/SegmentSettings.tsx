import { Button, Card, Checkbox, Group, Stack, Textarea, TextInput, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';

import { api, type Schema, unwrap } from '../../api/client';
import { useProjectId } from '../../api/session';
import { ErrorAlert, fieldError } from '../../components/ErrorAlert';

/** The name, description and (dynamic segments) membership tracking of a segment. */
export function SegmentSettings({ segment }: { segment: Schema<'Segment'> }) {
  const projectId = useProjectId();
  const queryClient = useQueryClient();
  const [name, setName] = useState(segment.name);
  const [description, setDescription] = useState(segment.description ?? '');
  const [trackMembership, setTrackMembership] = useState(segment.trackMembership);
  const save = useMutation({
    mutationFn: () =>
      unwrap(
        api.PATCH('/segments/{id}', {
          params: { path: { id: segment.id } },
          body: {
            name: name.trim(),
            description: description.trim() === '' ? null : description.trim(),
            ...(segment.type === 'DYNAMIC' ? { trackMembership } : {}),
          },
        }),
      ),
    onSuccess: async (updated) => {
      queryClient.setQueryData([projectId, 'segments', segment.id], updated);
      await queryClient.invalidateQueries({ queryKey: [projectId, 'segments'] });
    },
  });
  return (
    <Card withBorder>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          save.mutate();
        }}
      >
        <Stack gap="sm">
          <Title order={2} size="h4">
            Settings
          </Title>
          <TextInput
            label="Name"
            required
            maxLength={255}
            value={name}
            onChange={(event) => setName(event.currentTarget.value)}
            error={fieldError(save.error, 'name')}
          />
          <Textarea
            label="Description"
            autosize
            minRows={2}
            maxLength={1000}
            value={description}
            onChange={(event) => setDescription(event.currentTarget.value)}
            error={fieldError(save.error, 'description')}
          />
          {segment.type === 'DYNAMIC' && (
            <Checkbox
              label="Track who enters and leaves (records an entry or exit event for each contact when the segment is computed)"
              checked={trackMembership}
              onChange={(event) => setTrackMembership(event.currentTarget.checked)}
            />
          )}
          <ErrorAlert error={save.error} title="The settings could not be saved" />
          <Group>
            <Button type="submit" variant="light" loading={save.isPending}>
              Save settings
            </Button>
          </Group>
        </Stack>
      </form>
    </Card>
  );
}
