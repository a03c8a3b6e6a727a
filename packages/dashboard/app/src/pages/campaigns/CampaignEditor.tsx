import { Badge, Button, Stack } from '@mantine/core';
import { useCallback, useMemo, useState } from 'react';

import type { Schema } from '../../api/client';
import { ErrorAlert } from '../../components/ErrorAlert';
import { PageHeader } from '../../components/PageHeader';
import { notify } from '../templates/notify';
import { CampaignForm } from './CampaignForm';
import { CampaignHeaderActions } from './CampaignHeaderActions';
import { CampaignStatusBadge } from './CampaignStatusBadge';
import { type CampaignDraft, draftOf, sameDraft } from './draft';
import { SendPanel } from './SendPanel';
import { useCampaignActions } from './useCampaignActions';

/**
 * A draft or scheduled campaign: the ways to send it, then its fields and the preview of its
 * email. Errors of a save or a send show at the fields they concern (a sender outside the
 * verified domains on the From address); a wrong state (409) shows where the action was taken.
 */
export function CampaignEditor({ campaign }: { campaign: Schema<'Campaign'> }) {
  const [draft, setDraft] = useState<CampaignDraft>(() => draftOf(campaign));
  const saved = useMemo(() => draftOf(campaign), [campaign]);
  const dirty = !sameDraft(draft, saved);
  const actions = useCampaignActions(campaign.id);
  const change = useCallback(
    (patch: Partial<CampaignDraft>) => setDraft((current) => ({ ...current, ...patch })),
    [],
  );
  const error = actions.save.error ?? actions.send.error ?? actions.test.error;
  return (
    <>
      <PageHeader
        title={campaign.name}
        description={`${campaign.status === 'SCHEDULED' ? 'Scheduled' : 'Draft'}: change it until it goes out.`}
        actions={
          <>
            <CampaignStatusBadge status={campaign.status} />
            {dirty && (
              <Badge color="yellow" variant="light">
                Unsaved changes
              </Badge>
            )}
            <CampaignHeaderActions campaign={campaign} actions={actions} />
            <Button type="submit" form="campaign-form" loading={actions.save.isPending}>
              Save
            </Button>
          </>
        }
      />
      <Stack gap="sm" mb="md">
        <ErrorAlert error={actions.save.error} title="The campaign was not saved" />
        <ErrorAlert error={actions.duplicate.error} title="The campaign was not duplicated" />
        <ErrorAlert error={actions.cancel.error} title="The campaign was not cancelled" />
        <ErrorAlert error={actions.remove.error} title="The campaign was not deleted" />
      </Stack>
      <SendPanel campaign={campaign} draft={draft} dirty={dirty} actions={actions} />
      <CampaignForm
        formId="campaign-form"
        draft={draft}
        onChange={change}
        onSubmit={() =>
          actions.save.mutate(draft, { onSuccess: (result) => notify(`“${result.name}” is saved`) })
        }
        error={error}
        initialSource="html"
      />
    </>
  );
}
