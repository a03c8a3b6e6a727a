import { Button, Card, Checkbox, Group, Radio, Stack, Textarea, TextInput } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useNavigate } from 'react-router';

import { api, type Schema, unwrap } from '../../api/client';
import { useProjectId } from '../../api/session';
import { ErrorAlert, fieldError } from '../../components/ErrorAlert';
import { withConditionPaths } from '../../components/filters/conditionErrors';
import { emptyCondition, FilterBuilder } from '../../components/filters/FilterBuilder';
import { LiveCount } from '../../components/filters/LiveCount';
import { useConditionCount } from '../../components/filters/useConditionCount';
import { PageHeader } from '../../components/PageHeader';
import { projectPath } from '../../shell/navigation';

type SegmentType = Schema<'Segment'>['type'];

/**
 * `/p/:projectId/segments/new`: a dynamic segment built from filters (with a live count), or a
 * static list.
 */
export default function NewSegmentPage() {
  const projectId = useProjectId();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [type, setType] = useState<SegmentType>('DYNAMIC');
  const [condition, setCondition] = useState(emptyCondition);
  const [trackMembership, setTrackMembership] = useState(false);
  const count = useConditionCount(condition, type === 'DYNAMIC');

  const create = useMutation({
    mutationFn: () =>
      unwrap(
        api.POST('/segments', {
          body: {
            name: name.trim(),
            description: description.trim() === '' ? null : description.trim(),
            type,
            ...(type === 'DYNAMIC' ? { condition, trackMembership } : {}),
          },
        }),
      ),
    onSuccess: async (segment) => {
      await queryClient.invalidateQueries({ queryKey: [projectId, 'segments'] });
      void navigate(projectPath(projectId, `segments/${segment.id}`));
    },
  });

  return (
    <>
      <PageHeader
        title="New segment"
        description="A group of contacts to send campaigns to or to start workflows from."
      />
      <form
        onSubmit={(event) => {
          event.preventDefault();
          create.mutate();
        }}
      >
        <Stack gap="md" maw={960}>
          <Card withBorder>
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
                description="Optional: what the segment is for."
                maxLength={1000}
                autosize
                minRows={2}
                value={description}
                onChange={(event) => setDescription(event.currentTarget.value)}
                error={fieldError(create.error, 'description')}
              />
              <Radio.Group
                label="Type"
                value={type}
                onChange={(value) => setType(value === 'STATIC' ? 'STATIC' : 'DYNAMIC')}
              >
                <Stack gap="xs" mt="xs">
                  <Radio
                    value="DYNAMIC"
                    label="Dynamic"
                    description="Everyone who matches filters, kept up to date as contacts change."
                  />
                  <Radio
                    value="STATIC"
                    label="Static"
                    description="A fixed list of contacts you add by their email addresses."
                  />
                </Stack>
              </Radio.Group>
            </Stack>
          </Card>
          {type === 'DYNAMIC' && (
            <Card withBorder>
              <Stack gap="sm">
                <FilterBuilder
                  label="Who is in this segment"
                  value={condition}
                  onChange={setCondition}
                />
                <LiveCount count={count} />
                <Checkbox
                  label="Track who enters and leaves (records an entry or exit event for each contact when the segment is computed)"
                  checked={trackMembership}
                  onChange={(event) => setTrackMembership(event.currentTarget.checked)}
                />
              </Stack>
            </Card>
          )}
          <ErrorAlert
            error={withConditionPaths(create.error)}
            title="The segment could not be created"
          />
          <Group>
            <Button type="submit" loading={create.isPending}>
              Create segment
            </Button>
            <Button variant="default" component={Link} to={projectPath(projectId, 'segments')}>
              Cancel
            </Button>
          </Group>
        </Stack>
      </form>
    </>
  );
}
