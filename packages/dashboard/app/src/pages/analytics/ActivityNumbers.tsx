import { Card, Center, Group, Loader, SimpleGrid, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';

import { api, type Schema, unwrap } from '../../api/client';
import { useProjectId } from '../../api/session';
import { ErrorAlert } from '../../components/ErrorAlert';
import { type PeriodId, statsQuery } from './period';

/** Words for each activity type. */
const TYPES: Record<Schema<'ActivityItem'>['type'], string> = {
  'event.triggered': 'Events triggered',
  'email.sent': 'Emails sent',
  'email.delivered': 'Emails delivered',
  'email.opened': 'Opens',
  'email.clicked': 'Clicks',
  'email.bounced': 'Bounces',
  'email.complained': 'Complaints',
  'email.received': 'Emails received',
  'email.suppressed': 'Sends to suppressed addresses',
  'contact.subscribed': 'Subscriptions',
  'contact.unsubscribed': 'Unsubscriptions',
  'campaign.sent': 'Campaigns sent',
  'campaign.scheduled': 'Campaigns scheduled',
  'workflow.started': 'Workflows started',
  'workflow.completed': 'Workflows completed',
};

const isType = (type: string): type is keyof typeof TYPES => Object.hasOwn(TYPES, type);

/** The project's activity in `period` (`GET /activity/stats`): the total and a count per type. */
export function ActivityNumbers({ period }: { period: PeriodId }) {
  const projectId = useProjectId();
  const stats = useQuery({
    queryKey: [projectId, 'analytics', 'activity-stats', period],
    queryFn: () =>
      unwrap(api.GET('/activity/stats', { params: { query: statsQuery(period, new Date()) } })),
  });
  const counts = Object.entries(stats.data?.byType ?? {})
    .filter(([, count]) => count > 0)
    .sort(([, a], [, b]) => b - a);
  return (
    <Card withBorder component="section" aria-labelledby="activity-title">
      <Group justify="space-between" mb="sm">
        <Title order={2} size="h4" id="activity-title">
          Activity
        </Title>
        {stats.data !== undefined && (
          <Text size="sm" c="dimmed">
            {stats.data.total.toLocaleString()} in total, {stats.data.from} to {stats.data.to} (UTC)
          </Text>
        )}
      </Group>
      {stats.isPending && (
        <Center p="md">
          <Loader size="sm" aria-label="Loading the activity numbers" />
        </Center>
      )}
      <ErrorAlert error={stats.error} title="The activity numbers could not be loaded" />
      {stats.isSuccess && counts.length === 0 && (
        <Text size="sm" c="dimmed">
          Nothing happened in this period yet: sends, opens, clicks and events are counted here.
        </Text>
      )}
      <SimpleGrid cols={{ base: 2, sm: 3, lg: 4 }}>
        {counts.map(([type, count]) => (
          <div key={type}>
            <Text size="sm" c="dimmed">
              {isType(type) ? TYPES[type] : type}
            </Text>
            <Text fw={700} fz="lg">
              {count.toLocaleString()}
            </Text>
          </div>
        ))}
      </SimpleGrid>
    </Card>
  );
}
