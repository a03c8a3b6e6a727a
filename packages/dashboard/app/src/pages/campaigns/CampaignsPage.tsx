import {
  Anchor,
  Button,
  Center,
  Group,
  Loader,
  Select,
  Table,
  Text,
  TextInput,
} from '@mantine/core';
import { useState } from 'react';
import { Link } from 'react-router';

import type { Schema } from '../../api/client';
import { useProjectId } from '../../api/session';
import { EmptyState } from '../../components/EmptyState';
import { ErrorAlert } from '../../components/ErrorAlert';
import { PageHeader } from '../../components/PageHeader';
import { projectPath } from '../../shell/navigation';
import { AUDIENCE_LABELS } from './audience';
import { CAMPAIGN_STATUSES, type CampaignStatus, CampaignStatusBadge } from './CampaignStatusBadge';
import { useCampaigns } from './queries';

/** When a campaign went or goes out, or when it was last changed, in words. */
function whenOf(campaign: Schema<'Campaign'>): string {
  const date = (value: string) => new Date(value).toLocaleString();
  if (campaign.status === 'SCHEDULED' && campaign.scheduledAt !== null)
    return `Goes out ${date(campaign.scheduledAt)}`;
  if (campaign.sentAt !== null) return `Sent ${date(campaign.sentAt)}`;
  if (campaign.status === 'CANCELLED' && campaign.cancelledAt !== null)
    return `Cancelled ${date(campaign.cancelledAt)}`;
  return `Changed ${date(campaign.updatedAt)}`;
}

/** `/p/:projectId/campaigns`: the project's campaigns with their status, newest first. */
export default function CampaignsPage() {
  const projectId = useProjectId();
  const campaigns = useCampaigns();
  const [search, setSearch] = useState('');
  const [status, setStatus] = useState<CampaignStatus | null>(null);
  const words = search.trim().toLowerCase();
  const shown = (campaigns.data ?? []).filter(
    (campaign) =>
      (status === null || campaign.status === status) &&
      (words === '' ||
        campaign.name.toLowerCase().includes(words) ||
        campaign.subject.toLowerCase().includes(words)),
  );
  const newButton = (
    <Button component={Link} to={projectPath(projectId, 'campaigns/new')}>
      New campaign
    </Button>
  );

  return (
    <>
      <PageHeader
        title="Campaigns"
        description="One email to many contacts: now or at a time you choose."
        actions={newButton}
      />
      {campaigns.isPending && (
        <Center p="xl">
          <Loader aria-label="Loading the campaigns" />
        </Center>
      )}
      <ErrorAlert error={campaigns.error} title="The campaigns could not be loaded" />
      {campaigns.data?.length === 0 && (
        <EmptyState title="No campaigns yet" action={newButton}>
          Write an email, or start from a template, choose who gets it, and send it now or schedule
          it.
        </EmptyState>
      )}
      {campaigns.data !== undefined && campaigns.data.length > 0 && (
        <>
          <Group mb="md" align="flex-end">
            <TextInput
              label="Search"
              placeholder="Name or subject"
              value={search}
              onChange={(event) => setSearch(event.currentTarget.value)}
              style={{ flex: 1, minWidth: 200 }}
            />
            <Select
              label="Status"
              data={[
                { value: 'ANY', label: 'Every status' },
                ...CAMPAIGN_STATUSES.map(({ value, label }) => ({ value, label })),
              ]}
              value={status ?? 'ANY'}
              onChange={(value) =>
                setStatus(CAMPAIGN_STATUSES.find((item) => item.value === value)?.value ?? null)
              }
              allowDeselect={false}
              w={200}
            />
          </Group>
          {shown.length === 0 ? (
            <EmptyState title="No campaign matches">
              Try other words, or choose another status.
            </EmptyState>
          ) : (
            <Table.ScrollContainer minWidth={720}>
              <Table verticalSpacing="sm" highlightOnHover>
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>Name</Table.Th>
                    <Table.Th>Status</Table.Th>
                    <Table.Th>Audience</Table.Th>
                    <Table.Th>Recipients</Table.Th>
                    <Table.Th>When</Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {shown.map((campaign) => (
                    <Table.Tr key={campaign.id}>
                      <Table.Td>
                        <Anchor
                          component={Link}
                          to={projectPath(projectId, `campaigns/${campaign.id}`)}
                          fw={500}
                        >
                          {campaign.name}
                        </Anchor>
                        <Text size="xs" c="dimmed" lineClamp={1}>
                          {campaign.subject}
                        </Text>
                      </Table.Td>
                      <Table.Td>
                        <CampaignStatusBadge status={campaign.status} />
                      </Table.Td>
                      <Table.Td>
                        <Text size="sm">{AUDIENCE_LABELS[campaign.audienceType]}</Text>
                      </Table.Td>
                      <Table.Td>
                        <Text size="sm">
                          {campaign.recipients === null
                            ? '—'
                            : campaign.recipients.toLocaleString()}
                        </Text>
                      </Table.Td>
                      <Table.Td>
                        <Text size="sm">{whenOf(campaign)}</Text>
                      </Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </Table.ScrollContainer>
          )}
        </>
      )}
    </>
  );
}
