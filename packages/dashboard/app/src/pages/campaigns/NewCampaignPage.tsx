import { Button, Stack } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useCallback, useState } from 'react';
import { useNavigate } from 'react-router';

import { api, unwrap } from '../../api/client';
import { useProjectId } from '../../api/session';
import { ErrorAlert } from '../../components/ErrorAlert';
import { PageHeader } from '../../components/PageHeader';
import { projectPath } from '../../shell/navigation';
import { notify } from '../templates/notify';
import { CampaignForm } from './CampaignForm';
import { type CampaignDraft, campaignBodyOf, emptyDraft } from './draft';

/** `/p/:projectId/campaigns/new`: a new campaign, saved as a draft before it is sent. */
export default function NewCampaignPage() {
  const projectId = useProjectId();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [draft, setDraft] = useState<CampaignDraft>(emptyDraft);
  const change = useCallback(
    (patch: Partial<CampaignDraft>) => setDraft((current) => ({ ...current, ...patch })),
    [],
  );
  const create = useMutation({
    mutationFn: (values: CampaignDraft) =>
      unwrap(api.POST('/campaigns', { body: campaignBodyOf(values) })),
    onSuccess: async ({ data: campaign }) => {
      queryClient.setQueryData([projectId, 'campaigns', campaign.id], campaign);
      await queryClient.invalidateQueries({ queryKey: [projectId, 'campaigns'], exact: true });
      notify(`“${campaign.name}” is saved as a draft`);
      void navigate(projectPath(projectId, `campaigns/${campaign.id}`), { replace: true });
    },
  });
  return (
    <>
      <PageHeader
        title="New campaign"
        description="Save it as a draft, then send it now, schedule it, or send yourself a test."
        actions={
          <Button type="submit" form="campaign-form" loading={create.isPending}>
            Save draft
          </Button>
        }
      />
      <Stack mb="md">
        <ErrorAlert error={create.error} title="The campaign was not saved" />
      </Stack>
      <CampaignForm
        formId="campaign-form"
        draft={draft}
        onChange={change}
        onSubmit={() => create.mutate(draft)}
        error={create.error}
        initialSource="template"
      />
    </>
  );
}
