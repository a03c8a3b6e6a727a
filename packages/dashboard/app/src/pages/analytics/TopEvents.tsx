import { BarChart } from '@mantine/charts';
import { Card, Center, Loader, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';

import { api, unwrap } from '../../api/client';
import { useProjectId } from '../../api/session';
import { EmptyState } from '../../components/EmptyState';
import { ErrorAlert } from '../../components/ErrorAlert';

/** The event names triggered most often (all time), as bars. */
export function TopEvents() {
  const projectId = useProjectId();
  const top = useQuery({
    queryKey: [projectId, 'analytics', 'top-events'],
    queryFn: () => unwrap(api.GET('/analytics/top-events', { params: { query: { limit: 10 } } })),
  });
  const events = top.data?.events ?? [];
  return (
    <Card withBorder>
      <Title order={2} size="h4" mb="sm">
        Top events
      </Title>
      {top.isPending && (
        <Center p="md">
          <Loader size="sm" aria-label="Loading the top events" />
        </Center>
      )}
      <ErrorAlert error={top.error} title="The top events could not be loaded" />
      {top.isSuccess && events.length === 0 && (
        <EmptyState title="No events yet">
          Track what people do with POST /v1/track (for example signed-up) and the most frequent
          events show here.
        </EmptyState>
      )}
      {events.length > 0 && (
        <div
          role="img"
          aria-label={`Times each event was triggered: ${events.map((event) => `${event.name} ${event.count}`).join(', ')}`}
        >
          <BarChart
            h={Math.max(160, events.length * 36)}
            data={events}
            dataKey="name"
            orientation="vertical"
            yAxisProps={{ width: 160 }}
            series={[{ name: 'count', label: 'Times triggered', color: 'teal.7' }]}
            accessibilityLayer={false}
          />
        </div>
      )}
    </Card>
  );
}
