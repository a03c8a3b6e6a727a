import { Center, Loader } from '@mantine/core';
import { useParams } from 'react-router';

import { ErrorAlert } from '../../components/ErrorAlert';
import { PageHeader } from '../../components/PageHeader';
import { CampaignEditor } from './CampaignEditor';
import { CampaignReport } from './CampaignReport';
import { isEditable } from './draft';
import { useCampaign } from './queries';

/**
 * `/p/:projectId/campaigns/:campaignId`: a draft or scheduled campaign in its editor, with the
 * ways to send it; a campaign that is sending or done with its numbers, live while it sends.
 */
export default function CampaignPage() {
  const { campaignId = '' } = useParams();
  const campaign = useCampaign(campaignId);
  if (campaign.isPending) {
    return (
      <>
        <PageHeader title="Campaign" />
        <Center p="xl">
          <Loader aria-label="Loading the campaign" />
        </Center>
      </>
    );
  }
  if (campaign.isError) {
    return (
      <>
        <PageHeader title="Campaign" />
        <ErrorAlert error={campaign.error} title="The campaign could not be loaded" />
      </>
    );
  }
  // The editor is made again when the campaign leaves the editable states (or comes back).
  return isEditable(campaign.data.status) ? (
    <CampaignEditor key={`edit-${campaign.data.id}`} campaign={campaign.data} />
  ) : (
    <CampaignReport key={`report-${campaign.data.id}`} campaign={campaign.data} />
  );
}
