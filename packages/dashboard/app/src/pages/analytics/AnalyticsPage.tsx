import '@mantine/charts/styles.css';

import { SegmentedControl, SimpleGrid, Stack } from '@mantine/core';
import { useState } from 'react';

import { PageHeader } from '../../components/PageHeader';
import { ActivityNumbers } from './ActivityNumbers';
import { EmailTimeline } from './EmailTimeline';
import { type PeriodId, PERIODS } from './period';
import { TopCampaigns } from './TopCampaigns';
import { TopEvents } from './TopEvents';

const isPeriod = (value: string): value is PeriodId =>
  PERIODS.some((period) => period.value === value);

/** `/p/:projectId/analytics`: email over time, the project's activity, top campaigns and events. */
export default function AnalyticsPage() {
  const [period, setPeriod] = useState<PeriodId>('30d');
  return (
    <>
      <PageHeader
        title="Analytics"
        description="How your email performs: sends, deliveries, opens, clicks and bounces."
        actions={
          <SegmentedControl
            aria-label="Period"
            data={[...PERIODS]}
            value={period}
            onChange={(value) => {
              if (isPeriod(value)) setPeriod(value);
            }}
          />
        }
      />
      <Stack>
        <EmailTimeline period={period} />
        <ActivityNumbers period={period} />
        <SimpleGrid cols={{ base: 1, lg: 2 }}>
          <TopCampaigns />
          <TopEvents />
        </SimpleGrid>
      </Stack>
    </>
  );
}
