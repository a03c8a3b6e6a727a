/**
 * The numbers of a campaign (`GET /campaigns/:id/stats`) in figures and charts (@mantine/charts,
 * loaded with this module only), read again every 2 s while the campaign sends.
 */
import '@mantine/charts/styles.css';

import { BarChart, DonutChart } from '@mantine/charts';
import {
  Card,
  Center,
  Group,
  Loader,
  Paper,
  Progress,
  SimpleGrid,
  Stack,
  Table,
  Text,
} from '@mantine/core';

import { useId } from 'react';

import type { Schema } from '../../api/client';
import { ErrorAlert } from '../../components/ErrorAlert';
import { useCampaignStats } from './queries';

/** A rate of the API (a fraction, 4 decimals) as a percentage. */
function percent(rate: number): string {
  return `${(rate * 100).toLocaleString(undefined, { maximumFractionDigits: 1 })}%`;
}

/** One figure: its name, its number, and its rate when it has one. */
function Figure({ label, value, rate }: { label: string; value: number; rate?: string }) {
  return (
    <Paper withBorder p="sm" radius="md" role="group" aria-label={label}>
      <Text size="xs" c="dimmed" tt="uppercase" fw={700} aria-hidden>
        {label}
      </Text>
      <Text size="xl" fw={700}>
        {value.toLocaleString()}
      </Text>
      {rate !== undefined && (
        <Text size="xs" c="dimmed">
          {rate}
        </Text>
      )}
    </Paper>
  );
}

/** The campaign's figures, its progress while sending, a funnel and the delivery outcomes. */
export default function CampaignStats({ campaign }: { campaign: Schema<'Campaign'> }) {
  const stats = useCampaignStats(campaign.id, campaign.status === 'SENDING');
  const live = campaign.status === 'SENDING' || (stats.data?.queued ?? 0) > 0;
  const ids = { progress: useId(), funnel: useId(), funnelText: useId(), outcomes: useId() };
  if (stats.isPending) {
    return (
      <Center p="xl">
        <Loader aria-label="Loading the numbers" />
      </Center>
    );
  }
  if (stats.isError)
    return <ErrorAlert error={stats.error} title="The numbers could not be loaded" />;
  const data = stats.data;
  const { rates } = data;
  // `sent` counts every email of the campaign; the queued ones have not left yet.
  const out = data.sent - data.queued;
  const progress = data.recipients === 0 ? 0 : Math.min(100, (out / data.recipients) * 100);
  // Delivered counts the emails complained about too (the receiving side accepted them).
  const waiting = Math.max(0, data.sent - data.delivered - data.bounced - data.failed);

  return (
    <Stack>
      <Card withBorder>
        <Group justify="space-between" mb="xs">
          <Text fw={600} component="h2">
            Numbers
          </Text>
          {live && (
            <Group gap={6}>
              <Loader size="xs" aria-hidden />
              <Text size="sm" c="dimmed">
                Updating every 2 seconds while emails go out
              </Text>
            </Group>
          )}
        </Group>
        <Text size="sm" mb={4} id={ids.progress}>
          {out.toLocaleString()} of {data.recipients.toLocaleString()} emails on their way
          {data.queued > 0 && `, ${data.queued.toLocaleString()} waiting to go`}
        </Text>
        <Progress.Root mb="md">
          <Progress.Section value={progress} aria-labelledby={ids.progress} animated={live} />
        </Progress.Root>
        <SimpleGrid cols={{ base: 2, sm: 3, lg: 5 }}>
          <Figure label="Recipients" value={data.recipients} />
          <Figure label="Sent" value={data.sent} />
          <Figure
            label="Delivered"
            value={data.delivered}
            rate={`${percent(rates.delivery)} of sent`}
          />
          <Figure label="Opened" value={data.opened} rate={`${percent(rates.open)} of delivered`} />
          <Figure
            label="Clicked"
            value={data.clicked}
            rate={`${percent(rates.click)} of delivered`}
          />
          <Figure label="Bounced" value={data.bounced} rate={`${percent(rates.bounce)} of sent`} />
          <Figure
            label="Complaints"
            value={data.complained}
            rate={`${percent(rates.complaint)} of delivered`}
          />
          <Figure label="Failed" value={data.failed} rate={`${percent(rates.failure)} of sent`} />
          <Figure
            label="Unsubscribed"
            value={data.unsubscribed}
            rate={`${percent(rates.unsubscribe)} of delivered`}
          />
          <Figure label="Queued" value={data.queued} />
        </SimpleGrid>
      </Card>
      <SimpleGrid cols={{ base: 1, md: 2 }}>
        <Card withBorder>
          <Text fw={600} component="h2" mb="sm" id={ids.funnel}>
            From sent to clicked
          </Text>
          <div role="img" aria-labelledby={ids.funnel} aria-describedby={ids.funnelText}>
            <BarChart
              h={220}
              data={[
                { stage: 'Sent', emails: data.sent },
                { stage: 'Delivered', emails: data.delivered },
                { stage: 'Opened', emails: data.opened },
                { stage: 'Clicked', emails: data.clicked },
              ]}
              dataKey="stage"
              series={[{ name: 'emails', label: 'Emails', color: 'blue.8' }]}
              withTooltip={false}
            />
          </div>
          <Text size="xs" c="dimmed" id={ids.funnelText} mt="xs">
            {data.sent.toLocaleString()} sent, {data.delivered.toLocaleString()} delivered,{' '}
            {data.opened.toLocaleString()} opened, {data.clicked.toLocaleString()} clicked.
          </Text>
        </Card>
        <Card withBorder>
          <Text fw={600} component="h2" mb="sm" id={ids.outcomes}>
            Delivery outcomes
          </Text>
          {data.sent === 0 ? (
            <Text size="sm" c="dimmed">
              Nothing is sent yet.
            </Text>
          ) : (
            <Group align="center" gap="lg">
              <div role="img" aria-labelledby={ids.outcomes}>
                <DonutChart
                  size={160}
                  thickness={24}
                  withTooltip={false}
                  data={[
                    {
                      name: 'Delivered',
                      value: data.delivered - data.complained,
                      color: 'green.8',
                    },
                    { name: 'Not delivered yet', value: waiting, color: 'gray.5' },
                    { name: 'Bounced', value: data.bounced, color: 'orange.8' },
                    { name: 'Marked as spam', value: data.complained, color: 'grape.8' },
                    { name: 'Failed', value: data.failed, color: 'red.8' },
                  ].filter((cell) => cell.value > 0)}
                />
              </div>
              <Stack gap={4}>
                <Text size="sm">
                  Delivered: {(data.delivered - data.complained).toLocaleString()}
                </Text>
                <Text size="sm">Marked as spam: {data.complained.toLocaleString()}</Text>
                <Text size="sm">Not delivered yet: {waiting.toLocaleString()}</Text>
                <Text size="sm">Bounced: {data.bounced.toLocaleString()}</Text>
                <Text size="sm">Failed: {data.failed.toLocaleString()}</Text>
              </Stack>
            </Group>
          )}
        </Card>
      </SimpleGrid>
      <Card withBorder>
        <Text fw={600} component="h2" mb="sm">
          Opens and clicks
        </Text>
        <Text size="sm" c="dimmed" mb="sm">
          Mail scanners and privacy features open and follow links on their own; those are counted
          apart, and left out of the opened and clicked figures.
        </Text>
        <Table>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Kind</Table.Th>
              <Table.Th>By people (emails)</Table.Th>
              <Table.Th>By people (in all)</Table.Th>
              <Table.Th>Automated (emails)</Table.Th>
              <Table.Th>Automated (in all)</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {[
              { kind: 'Opens', counts: data.opens },
              { kind: 'Clicks', counts: data.clicks },
            ].map(({ kind, counts }) => (
              <Table.Tr key={kind}>
                <Table.Td>{kind}</Table.Td>
                <Table.Td>{counts.human.unique.toLocaleString()}</Table.Td>
                <Table.Td>{counts.human.total.toLocaleString()}</Table.Td>
                <Table.Td>{counts.automated.unique.toLocaleString()}</Table.Td>
                <Table.Td>{counts.automated.total.toLocaleString()}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Card>
    </Stack>
  );
}
