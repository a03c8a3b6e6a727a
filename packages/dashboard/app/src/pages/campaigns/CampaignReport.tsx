import { Card, Center, Grid, Loader, Stack, Table, Text } from '@mantine/core';
import { lazy, type ReactNode, Suspense, useMemo, useState } from 'react';

import type { Schema } from '../../api/client';
import { ErrorAlert } from '../../components/ErrorAlert';
import { PageHeader } from '../../components/PageHeader';
import { EmailPreview } from '../templates/EmailPreview';
import { type PreviewRecipient, SAMPLE_RECIPIENT } from '../templates/previewScope';
import { PreviewRecipientSelect } from '../templates/PreviewRecipientSelect';
import { AUDIENCE_LABELS } from './audience';
import { CampaignHeaderActions } from './CampaignHeaderActions';
import { CampaignStatusBadge } from './CampaignStatusBadge';
import { useSegmentChoices } from './queries';
import { TestSendForm } from './TestSendForm';
import { useCampaignActions } from './useCampaignActions';

// The charts load with the numbers of a campaign only.
const CampaignStats = lazy(() => import('./CampaignStats'));

const DESCRIPTIONS = {
  SENDING: 'Going out now; the numbers follow as it sends.',
  SENT: 'Sent. Opens, clicks and bounces keep coming in.',
  CANCELLED: 'Cancelled: what was not sent yet did not go out.',
} as const;

/** One row of the summary table. */
function Row({ label, children }: { label: string; children: ReactNode }) {
  return (
    <Table.Tr>
      <Table.Th scope="row" w={160}>
        {label}
      </Table.Th>
      <Table.Td>{children}</Table.Td>
    </Table.Tr>
  );
}

/**
 * A campaign that is sending, sent or cancelled: its numbers and charts (live while it sends),
 * what it was, and the email it sent.
 */
export function CampaignReport({ campaign }: { campaign: Schema<'Campaign'> }) {
  const actions = useCampaignActions(campaign.id);
  const segments = useSegmentChoices();
  const [recipient, setRecipient] = useState<PreviewRecipient>(SAMPLE_RECIPIENT);
  const segment = useMemo(
    () => segments.data?.find((item) => item.id === campaign.segmentId),
    [segments.data, campaign.segmentId],
  );
  const status =
    campaign.status === 'DRAFT' || campaign.status === 'SCHEDULED' ? 'SENT' : campaign.status;
  const date = (value: string | null) => (value === null ? '—' : new Date(value).toLocaleString());
  return (
    <>
      <PageHeader
        title={campaign.name}
        description={DESCRIPTIONS[status]}
        actions={
          <>
            <CampaignStatusBadge status={campaign.status} />
            <CampaignHeaderActions campaign={campaign} actions={actions} />
          </>
        }
      />
      <Stack gap="sm" mb="md">
        <ErrorAlert error={actions.duplicate.error} title="The campaign was not duplicated" />
        <ErrorAlert error={actions.cancel.error} title="The campaign was not cancelled" />
        <ErrorAlert error={actions.remove.error} title="The campaign was not deleted" />
      </Stack>
      <Stack>
        <Suspense
          fallback={
            <Center p="xl">
              <Loader aria-label="Loading the numbers" />
            </Center>
          }
        >
          <CampaignStats campaign={campaign} />
        </Suspense>
        <Grid gap="lg">
          <Grid.Col span={{ base: 12, lg: 6 }}>
            <Stack>
              <Card withBorder>
                <Text fw={600} component="h2" mb="sm">
                  Campaign
                </Text>
                <Table>
                  <Table.Tbody>
                    <Row label="Subject">{campaign.subject}</Row>
                    <Row label="From">
                      {campaign.fromName === null
                        ? campaign.from
                        : `${campaign.fromName} <${campaign.from}>`}
                    </Row>
                    {campaign.replyTo !== null && <Row label="Reply to">{campaign.replyTo}</Row>}
                    <Row label="Audience">
                      {campaign.audienceType === 'SEGMENT'
                        ? `Segment “${segment?.name ?? campaign.segmentId ?? ''}”`
                        : AUDIENCE_LABELS[campaign.audienceType]}
                    </Row>
                    <Row label="Recipients">
                      {campaign.recipients === null ? '—' : campaign.recipients.toLocaleString()}
                    </Row>
                    <Row label="Sent">{date(campaign.sentAt)}</Row>
                    {campaign.status === 'CANCELLED' && (
                      <Row label="Cancelled">
                        {date(campaign.cancelledAt)}
                        {campaign.cancelReason === null ? '' : ` (${campaign.cancelReason})`}
                      </Row>
                    )}
                  </Table.Tbody>
                </Table>
              </Card>
              <Card withBorder>
                <TestSendForm actions={actions} />
              </Card>
            </Stack>
          </Grid.Col>
          <Grid.Col span={{ base: 12, lg: 6 }}>
            <Card withBorder>
              <Text fw={600} component="h2" mb="sm">
                The email
              </Text>
              <Stack gap="sm">
                <PreviewRecipientSelect value={recipient} onChange={setRecipient} />
                <EmailPreview
                  subject={campaign.subject}
                  body={campaign.body}
                  recipient={recipient}
                />
              </Stack>
            </Card>
          </Grid.Col>
        </Grid>
      </Stack>
    </>
  );
}
