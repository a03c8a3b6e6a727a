import { Badge, Button, Group, Loader, Stack, Text, Timeline, Title } from '@mantine/core';

import { api, unwrap } from '../../api/client';
import { useCursorList } from '../../api/lists';
import { useProjectId } from '../../api/session';
import { ErrorAlert } from '../../components/ErrorAlert';
import { ActivityBadge } from '../activity/ActivityBadge';
import { activityDetail, dataSummary } from '../activity/describe';
import { formatDateTime } from '../activity/format';
import { mergeTimeline, type TimelineEntry } from './timeline';

/** One entry of the timeline: what happened, when, and its detail. */
function Entry({ entry }: { entry: TimelineEntry }) {
  const detail =
    entry.kind === 'event'
      ? [entry.event.name, dataSummary(entry.event.data)].filter(Boolean).join(': ')
      : activityDetail(entry.item);
  return (
    <Stack gap={2}>
      <Group gap="xs">
        {entry.kind === 'event' ? (
          <Badge color="grape" variant="light" radius="sm">
            Event tracked
          </Badge>
        ) : (
          <ActivityBadge type={entry.item.type} />
        )}
        <Text size="xs" c="dimmed" component="time" dateTime={entry.at}>
          {formatDateTime(entry.at)}
        </Text>
      </Group>
      {detail !== undefined && detail !== '' && (
        <Text size="sm" style={{ wordBreak: 'break-word' }}>
          {detail}
        </Text>
      )}
    </Stack>
  );
}

/**
 * What happened to a contact, newest first: its tracked events and its activity (emails sent,
 * delivered, opened, clicked, subscription changes…), 50 of each at a time.
 */
export function ContactTimeline({ contactId }: { contactId: string }) {
  const projectId = useProjectId();
  const events = useCursorList([projectId, 'events', 'contact', contactId], (cursor) =>
    unwrap(
      api.GET('/events/contact/{contactId}', {
        params: {
          path: { contactId },
          query: { limit: 50, ...(cursor === undefined ? {} : { cursor }) },
        },
      }),
    ),
  );
  const activity = useCursorList([projectId, 'activity', 'list', { contactId }], (cursor) =>
    unwrap(
      api.GET('/activity', {
        params: { query: { contactId, limit: 50, ...(cursor === undefined ? {} : { cursor }) } },
      }),
    ),
  );
  const lists = [events, activity];
  const merged = mergeTimeline([
    {
      entries: events.items.map((event) => ({
        kind: 'event' as const,
        id: event.id,
        at: event.createdAt,
        event,
      })),
      hasMore: events.hasNextPage,
    },
    {
      entries: activity.items.map((item) => ({
        kind: 'activity' as const,
        id: item.id,
        at: item.createdAt,
        item,
      })),
      hasMore: activity.hasNextPage,
    },
  ]);
  const loading = events.isPending || activity.isPending;
  const fetchingMore = lists.some((list) => list.isFetchingNextPage);
  return (
    <section aria-labelledby="timeline-title">
      <Title order={2} size="h4" id="timeline-title" mb="sm">
        Timeline
      </Title>
      <ErrorAlert error={events.error} title="The contact's events could not be loaded" />
      <ErrorAlert error={activity.error} title="The contact's activity could not be loaded" />
      {loading && <Loader size="sm" aria-label="Loading the timeline" />}
      {!loading && merged.entries.length === 0 && merged.next.length === 0 && (
        <Text size="sm" c="dimmed">
          Nothing yet. Emails sent to this contact and events tracked for it show up here.
        </Text>
      )}
      {merged.entries.length > 0 && (
        <Timeline bulletSize={14} lineWidth={2}>
          {merged.entries.map((entry) => (
            <Timeline.Item key={`${entry.kind}:${entry.id}`}>
              <Entry entry={entry} />
            </Timeline.Item>
          ))}
        </Timeline>
      )}
      {merged.next.length > 0 && (
        <Button
          mt="md"
          variant="default"
          loading={fetchingMore}
          onClick={() => {
            for (const index of merged.next) void lists[index]?.fetchNextPage();
          }}
        >
          Show older
        </Button>
      )}
    </section>
  );
}
