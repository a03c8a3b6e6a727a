import { Badge, Button, Center, Group, Loader, Stack, Text } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useNavigate, useParams } from 'react-router';

import { api, type Schema, unwrap } from '../../api/client';
import { useProjectId } from '../../api/session';
import { ConfirmButton } from '../../components/ConfirmButton';
import { ErrorAlert } from '../../components/ErrorAlert';
import { PageHeader } from '../../components/PageHeader';
import { projectPath } from '../../shell/navigation';
import { AddMembersForm } from './AddMembersForm';
import { useSegment } from './queries';
import { SegmentCondition } from './SegmentCondition';
import { SegmentMembers } from './SegmentMembers';
import { SegmentSettings } from './SegmentSettings';

/**
 * `/p/:projectId/segments/:segmentId`: a segment, its members, its filters (dynamic) or the form
 * to add and remove members (static), recomputing and deleting it.
 */
export default function SegmentPage() {
  const projectId = useProjectId();
  const { segmentId = '' } = useParams();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const segment = useSegment(segmentId);

  const compute = useMutation({
    mutationFn: () =>
      unwrap(api.POST('/segments/{id}/compute', { params: { path: { id: segmentId } } })),
    onSuccess: async (result) => {
      notifications.show({
        title: 'Segment computed',
        message: `${result.memberCount.toLocaleString()} members; ${result.entered.toLocaleString()} entered and ${result.exited.toLocaleString()} left.`,
      });
      await queryClient.invalidateQueries({ queryKey: [projectId, 'segments'] });
    },
  });
  const remove = useMutation({
    mutationFn: () => unwrap(api.DELETE('/segments/{id}', { params: { path: { id: segmentId } } })),
    onSuccess: async () => {
      queryClient.removeQueries({ queryKey: [projectId, 'segments', segmentId] });
      // The list shows it gone at once, before it is read again.
      queryClient.setQueryData<Schema<'Segment'>[]>([projectId, 'segments'], (list) =>
        list?.filter((item) => item.id !== segmentId),
      );
      await queryClient.invalidateQueries({ queryKey: [projectId, 'segments'] });
      void navigate(projectPath(projectId, 'segments'));
    },
  });

  if (segment.isPending) {
    return (
      <Center p="xl">
        <Loader aria-label="Loading the segment" />
      </Center>
    );
  }
  if (segment.isError) {
    return (
      <>
        <PageHeader title="Segment" />
        <ErrorAlert error={segment.error} title="The segment could not be loaded" />
      </>
    );
  }
  const data = segment.data;
  const dynamic = data.type === 'DYNAMIC';
  return (
    <>
      <PageHeader
        title={data.name}
        description={data.description ?? undefined}
        actions={
          <>
            {dynamic && (
              <Button
                variant="default"
                onClick={() => compute.mutate()}
                loading={compute.isPending}
              >
                Compute now
              </Button>
            )}
            <ConfirmButton
              variant="light"
              color="red"
              title="Delete this segment?"
              message={`"${data.name}" will be deleted. Its contacts are kept. A segment used by a campaign that is scheduled or sending cannot be deleted.`}
              confirmLabel="Delete segment"
              onConfirm={() => remove.mutate()}
              loading={remove.isPending}
            >
              Delete
            </ConfirmButton>
          </>
        }
      />
      <Stack gap="md">
        <ErrorAlert error={remove.error} title="The segment could not be deleted" />
        <ErrorAlert error={compute.error} title="The segment could not be computed" />
        <Group gap="sm">
          <Badge variant="light" color={dynamic ? 'blue' : 'grape'}>
            {dynamic ? 'Dynamic' : 'Static'}
          </Badge>
          <Text size="sm">
            {data.memberCount.toLocaleString()} {data.memberCount === 1 ? 'member' : 'members'}
          </Text>
          {dynamic && (
            <Text size="sm" c="dimmed">
              {data.trackMembership
                ? 'Entry and exit events are recorded when the segment is computed.'
                : 'Entry and exit events are off.'}
            </Text>
          )}
        </Group>
        {dynamic ? (
          <SegmentCondition key={data.updatedAt} segment={data} />
        ) : (
          <AddMembersForm segment={data} />
        )}
        <SegmentMembers segment={data} />
        <SegmentSettings key={data.updatedAt} segment={data} />
      </Stack>
    </>
  );
}
