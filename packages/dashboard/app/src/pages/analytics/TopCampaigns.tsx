import { BarChart } from '@mantine/charts';
import { Card, Center, Group, Loader, Select, Title } from '@mantine/core';
import { useQueries, useQuery } from '@tanstack/react-query';
import { useState } from 'react';

import { api, ApiError, unwrap } from '../../api/client';
import { useProjectId } from '../../api/session';
import { EmptyState } from '../../components/EmptyState';
import { ErrorAlert } from '../../components/ErrorAlert';

type Metric = 'sent' | 'delivered' | 'opened' | 'clicked' | 'bounced';

const METRICS: readonly { value: Metric; label: string }[] = [
  { value: 'opened', label: 'Opens' },
  { value: 'clicked', label: 'Clicks' },
  { value: 'sent', label: 'Emails sent' },
  { value: 'delivered', label: 'Deliveries' },
  { value: 'bounced', label: 'Bounces' },
];

const isMetric = (value: string | null): value is Metric =>
  METRICS.some((metric) => metric.value === value);

/** The campaigns with the most opens, clicks, sends, deliveries or bounces (all time), as bars. */
export function TopCampaigns() {
  const projectId = useProjectId();
  const [metric, setMetric] = useState<Metric>('opened');
  const top = useQuery({
    queryKey: [projectId, 'analytics', 'top-campaigns', metric],
    queryFn: () =>
      unwrap(api.GET('/analytics/top-campaigns', { params: { query: { metric, limit: 10 } } })),
  });
  const campaigns = top.data?.campaigns ?? [];
  // The names of the campaigns (a removed campaign has none).
  const names = useQueries({
    queries: campaigns.map((campaign) => ({
      queryKey: [projectId, 'analytics', 'campaign-name', campaign.campaignId],
      queryFn: async () => {
        try {
          const found = await unwrap(
            api.GET('/campaigns/{id}', { params: { path: { id: campaign.campaignId } } }),
          );
          return found.name;
        } catch (error) {
          if (error instanceof ApiError && error.status === 404) return 'Removed campaign';
          throw error;
        }
      },
      staleTime: 60_000,
    })),
  });
  const label = METRICS.find((item) => item.value === metric)?.label ?? metric;
  const data = campaigns.map((campaign, index) => ({
    name: names[index]?.data ?? campaign.campaignId,
    [metric]: campaign[metric],
  }));
  return (
    <Card withBorder>
      <Group justify="space-between" mb="sm">
        <Title order={2} size="h4">
          Top campaigns
        </Title>
        <Select
          aria-label="Rank campaigns by"
          data={METRICS}
          value={metric}
          allowDeselect={false}
          onChange={(value) => {
            if (isMetric(value)) setMetric(value);
          }}
          w={180}
        />
      </Group>
      {top.isPending && (
        <Center p="md">
          <Loader size="sm" aria-label="Loading the top campaigns" />
        </Center>
      )}
      <ErrorAlert error={top.error} title="The top campaigns could not be loaded" />
      {top.isSuccess && data.length === 0 && (
        <EmptyState title="No campaign has been sent yet">
          Send a campaign from the Campaigns page and it is ranked here.
        </EmptyState>
      )}
      {data.length > 0 && (
        <div
          role="img"
          aria-label={`${label} per campaign: ${data.map((item) => `${item.name} ${String(item[metric])}`).join(', ')}`}
        >
          <BarChart
            h={Math.max(160, data.length * 36)}
            data={data}
            dataKey="name"
            orientation="vertical"
            yAxisProps={{ width: 160 }}
            series={[{ name: metric, label, color: 'blue.7' }]}
            accessibilityLayer={false}
          />
        </div>
      )}
    </Card>
  );
}
