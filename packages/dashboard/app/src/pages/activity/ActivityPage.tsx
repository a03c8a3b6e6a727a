import { Button, Group, Loader, Select } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';

import { api, unwrap } from '../../api/client';
import { useCursorList } from '../../api/lists';
import { useProjectId } from '../../api/session';
import { EmptyState } from '../../components/EmptyState';
import { ErrorAlert } from '../../components/ErrorAlert';
import { LoadMore } from '../../components/LoadMore';
import { PageHeader } from '../../components/PageHeader';
import { ActivityTable } from './ActivityTable';
import { ACTIVITY_TYPES, type ActivityType } from './describe';
import { TrackEventButton } from './TrackEventButton';

/** Whether `value` names a type of activity item. */
function isActivityType(value: string | null): value is ActivityType {
  return value !== null && Object.hasOwn(ACTIVITY_TYPES, value);
}

/**
 * `/p/:projectId/activity`: the project's activity feed, newest first (`GET /activity`, 50 at a
 * time), filtered by type (the types present, from `GET /activity/types`), with a form to track
 * an event.
 */
export default function ActivityPage() {
  const projectId = useProjectId();
  const [type, setType] = useState<ActivityType | null>(null);
  const types = useQuery({
    queryKey: [projectId, 'activity', 'types'],
    queryFn: () => unwrap(api.GET('/activity/types')),
  });
  const list = useCursorList([projectId, 'activity', 'list', { type }], (cursor) =>
    unwrap(
      api.GET('/activity', {
        params: {
          query: {
            limit: 50,
            ...(cursor === undefined ? {} : { cursor }),
            ...(type === null ? {} : { type }),
          },
        },
      }),
    ),
  );
  const options = [
    { value: 'all', label: 'All activity' },
    ...(types.data?.types ?? []).map((item) => ({
      value: item.type,
      label: `${ACTIVITY_TYPES[item.type].label} (${item.count.toLocaleString()})`,
    })),
  ];
  return (
    <>
      <PageHeader
        title="Activity"
        description="Emails sent, delivered, opened and clicked, subscriptions and tracked events, newest first."
        actions={
          <>
            <Button
              variant="default"
              onClick={() => {
                void types.refetch();
                void list.refetch();
              }}
              loading={list.isRefetching && !list.isFetchingNextPage}
            >
              Refresh
            </Button>
            <TrackEventButton />
          </>
        }
      />
      <Group mb="md" align="flex-end">
        <Select
          label="Type"
          data={options}
          value={type ?? 'all'}
          onChange={(value) => setType(isActivityType(value) ? value : null)}
          allowDeselect={false}
          w={280}
        />
      </Group>
      <ErrorAlert error={types.error} title="The activity types could not be loaded" />
      <ErrorAlert error={list.error} title="The activity could not be loaded" />
      {list.isPending && <Loader aria-label="Loading the activity" />}
      {list.isSuccess && list.items.length === 0 && (
        <EmptyState title={type === null ? 'No activity yet' : 'Nothing of this type yet'}>
          {type === null
            ? 'Send an email or track an event: what happens to your emails and contacts shows up here.'
            : 'Choose another type, or all activity, to see what happened.'}
        </EmptyState>
      )}
      {list.items.length > 0 && (
        <>
          <ActivityTable projectId={projectId} items={list.items} />
          <LoadMore list={list} />
        </>
      )}
    </>
  );
}
