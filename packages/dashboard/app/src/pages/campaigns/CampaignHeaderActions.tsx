import { Button } from '@mantine/core';
import { useNavigate } from 'react-router';

import type { Schema } from '../../api/client';
import { useProjectId } from '../../api/session';
import { ConfirmButton } from '../../components/ConfirmButton';
import { projectPath } from '../../shell/navigation';
import { notify } from '../templates/notify';
import type { useCampaignActions } from './useCampaignActions';

/**
 * The actions of a campaign that every state has some of: duplicate (always), cancel (while
 * scheduled or sending), delete (when neither scheduled nor sending).
 */
export function CampaignHeaderActions({
  campaign,
  actions,
}: {
  campaign: Schema<'Campaign'>;
  actions: ReturnType<typeof useCampaignActions>;
}) {
  const projectId = useProjectId();
  const navigate = useNavigate();
  const active = campaign.status === 'SCHEDULED' || campaign.status === 'SENDING';
  return (
    <>
      <Button
        variant="default"
        loading={actions.duplicate.isPending}
        onClick={() =>
          actions.duplicate.mutate(undefined, {
            onSuccess: (copy) => {
              notify(`Copied as “${copy.name}”, a draft`);
              void navigate(projectPath(projectId, `campaigns/${copy.id}`));
            },
          })
        }
      >
        Duplicate
      </Button>
      {active ? (
        <ConfirmButton
          variant="default"
          color="red"
          loading={actions.cancel.isPending}
          title={`Cancel “${campaign.name}”?`}
          message={
            campaign.status === 'SENDING'
              ? 'Emails not handed over yet are not sent. Emails already sent stay sent.'
              : 'It will not go out. You can duplicate it later to send it again.'
          }
          confirmLabel="Cancel the campaign"
          onConfirm={() =>
            actions.cancel.mutate(undefined, {
              onSuccess: () => notify('The campaign is cancelled'),
            })
          }
        >
          Cancel campaign
        </ConfirmButton>
      ) : (
        <ConfirmButton
          variant="default"
          color="red"
          loading={actions.remove.isPending}
          title={`Delete “${campaign.name}”?`}
          message="The campaign and its numbers are gone for good. Emails already sent stay sent."
          confirmLabel="Delete the campaign"
          onConfirm={() =>
            actions.remove.mutate(undefined, {
              onSuccess: () => {
                notify(`“${campaign.name}” is deleted`);
                void navigate(projectPath(projectId, 'campaigns'));
              },
            })
          }
        >
          Delete
        </ConfirmButton>
      )}
    </>
  );
}
