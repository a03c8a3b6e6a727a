import { AreaChart } from '@mantine/charts';
import { Card, Center, Loader, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';

import { api, unwrap } from '../../api/client';
import { useProjectId } from '../../api/session';
import { EmptyState } from '../../components/EmptyState';
import { ErrorAlert } from '../../components/ErrorAlert';
import { bucketLabel, type PeriodId, timeseriesQuery } from './period';

/** The metrics of the series, with their words and colours. */
const METRICS = [
  { name: 'sent', label: 'Sent', color: 'blue.7' },
  { name: 'delivered', label: 'Delivered', color: 'teal.7' },
  { name: 'opened', label: 'Opened', color: 'violet.7' },
  { name: 'clicked', label: 'Clicked', color: 'orange.8' },
  { name: 'bounced', label: 'Bounced', color: 'red.7' },
] as const;

type Metric = (typeof METRICS)[number]['name'];

/** The sum of `metric` over the points of a series. */
function sumOf(points: readonly Record<Metric, number>[], metric: Metric): number {
  return points.reduce((sum, point) => sum + point[metric], 0);
}

/** The share `part` is of `whole`, as a percentage in words. */
function rate(part: number, whole: number): string {
  return whole === 0 ? '—' : `${((part / whole) * 100).toFixed(1)}%`;
}

/** Email sent, delivered, opened, clicked and bounced over `period`: totals and a chart. */
export function EmailTimeline({ period }: { period: PeriodId }) {
  const projectId = useProjectId();
  const series = useQuery({
    queryKey: [projectId, 'analytics', 'timeseries', period],
    queryFn: () =>
      unwrap(
        api.GET('/analytics/timeseries', {
          params: { query: timeseriesQuery(period, new Date()) },
        }),
      ),
  });
  if (series.isPending) {
    return (
      <Center p="xl">
        <Loader aria-label="Loading the email chart" />
      </Center>
    );
  }
  if (series.isError) {
    return <ErrorAlert error={series.error} title="The email chart could not be loaded" />;
  }
  const { granularity } = series.data;
  const points = series.data.series;
  const totals: Record<Metric, number> = {
    sent: sumOf(points, 'sent'),
    delivered: sumOf(points, 'delivered'),
    opened: sumOf(points, 'opened'),
    clicked: sumOf(points, 'clicked'),
    bounced: sumOf(points, 'bounced'),
  };
  const data = points.map((point) => ({
    ...point,
    label: bucketLabel(point.timestamp, granularity),
  }));
  const empty = METRICS.every((metric) => totals[metric.name] === 0);
  return (
    <Stack>
      <SimpleGrid cols={{ base: 2, sm: 3, lg: 5 }} role="group" aria-label="Email totals">
        {METRICS.map((metric) => (
          <Card withBorder key={metric.name}>
            <Text size="sm" c="dimmed">
              {metric.label}
            </Text>
            <Text fz="xl" fw={700}>
              {totals[metric.name].toLocaleString()}
            </Text>
            {metric.name !== 'sent' && (
              <Text size="xs" c="dimmed">
                {rate(totals[metric.name], totals.sent)} of sent
              </Text>
            )}
          </Card>
        ))}
      </SimpleGrid>
      <Card withBorder>
        <Title order={2} size="h4" mb="sm">
          Email over time
        </Title>
        {empty ? (
          <EmptyState title="No email in this period">
            Send an email or a campaign and its deliveries, opens and clicks show here.
          </EmptyState>
        ) : (
          <div
            role="img"
            aria-label={`Chart of email per ${granularity}: ${METRICS.map((metric) => `${totals[metric.name]} ${metric.label.toLowerCase()}`).join(', ')} in total`}
          >
            <AreaChart
              h={280}
              data={data}
              dataKey="label"
              series={METRICS.map(({ name, label, color }) => ({ name, label, color }))}
              curveType="linear"
              withLegend
              withDots={false}
              accessibilityLayer={false}
            />
          </div>
        )}
      </Card>
    </Stack>
  );
}
