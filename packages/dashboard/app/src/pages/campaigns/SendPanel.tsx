import { Alert, Button, Card, Divider, Group, Stack, Text, TextInput } from '@mantine/core';
import { useState } from 'react';

import type { Schema } from '../../api/client';
import { ConfirmButton } from '../../components/ConfirmButton';
import { ErrorAlert } from '../../components/ErrorAlert';
import { notify } from '../templates/notify';
import type { CampaignDraft } from './draft';
import { TestSendForm } from './TestSendForm';
import type { useCampaignActions } from './useCampaignActions';

/** `iso` as the value of a `datetime-local` input, in the browser's time zone. */
function localInputValue(iso: string): string {
  const date = new Date(iso);
  const pad = (value: number) => String(value).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

/**
 * The ways to send a draft or scheduled campaign: now (after a confirmation naming the number
 * of recipients), at a date and time, or once as a test. Unsaved changes are saved first.
 */
export function SendPanel({
  campaign,
  draft,
  dirty,
  actions,
}: {
  campaign: Schema<'Campaign'>;
  draft: CampaignDraft;
  dirty: boolean;
  actions: ReturnType<typeof useCampaignActions>;
}) {
  const scheduledAt = campaign.status === 'SCHEDULED' ? campaign.scheduledAt : null;
  const [sendAt, setSendAt] = useState(scheduledAt === null ? '' : localInputValue(scheduledAt));
  const { send } = actions;
  const unsaved = dirty ? draft : undefined;
  const when = sendAt === '' ? undefined : new Date(sendAt);
  return (
    <Card withBorder mb="lg">
      <Stack>
        <Text fw={600} component="h2">
          Send
        </Text>
        {scheduledAt !== null && (
          <Alert color="blue" variant="light" title="Scheduled">
            Goes out on {new Date(scheduledAt).toLocaleString()}. Choose another time, send it now,
            or cancel it.
          </Alert>
        )}
        <Group align="flex-end" gap="sm">
          <ConfirmButton
            color="blue"
            loading={send.isPending && send.variables.scheduledFor === undefined}
            title={`Send “${draft.name}” now?`}
            message={
              <>
                It goes out at once to the audience you chose (see how many under Audience); it
                cannot be undone, though you can cancel what is not sent yet.
                {dirty && ' Your changes are saved first.'}
              </>
            }
            confirmLabel="Send now"
            onConfirm={() =>
              send.mutate(
                { draft: unsaved },
                { onSuccess: () => notify(`“${draft.name}” is sending`) },
              )
            }
          >
            Send now
          </ConfirmButton>
          <Text size="sm" c="dimmed" pb={8}>
            or
          </Text>
          <form
            style={{ display: 'contents' }}
            onSubmit={(event) => {
              event.preventDefault();
              if (when === undefined || Number.isNaN(when.getTime())) return;
              send.mutate(
                { draft: unsaved, scheduledFor: when.toISOString() },
                { onSuccess: () => notify(`“${draft.name}” goes out on ${when.toLocaleString()}`) },
              );
            }}
          >
            <TextInput
              label="Send at"
              description="Your local time"
              type="datetime-local"
              required
              withAsterisk={false}
              value={sendAt}
              onChange={(event) => setSendAt(event.currentTarget.value)}
            />
            <Button
              type="submit"
              variant="default"
              loading={send.isPending && send.variables.scheduledFor !== undefined}
            >
              {scheduledAt === null ? 'Schedule' : 'Reschedule'}
            </Button>
          </form>
        </Group>
        <ErrorAlert error={send.error} title="The campaign was not sent" />
        <Divider />
        <TestSendForm actions={actions} unsaved={unsaved} />
      </Stack>
    </Card>
  );
}
