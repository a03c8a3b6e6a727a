import { Alert, Button, Group, Stack, Text, TextInput } from '@mantine/core';
import { useState } from 'react';

import { useMe } from '../../api/session';
import { ErrorAlert, fieldError } from '../../components/ErrorAlert';
import type { CampaignDraft } from './draft';
import type { useCampaignActions } from './useCampaignActions';

/**
 * "Send a test" (`POST /campaigns/:id/test`): the campaign once to one address, the signed-in
 * user's by default, with "[Test]" before its subject. Unsaved changes (`unsaved`) are saved first.
 */
export function TestSendForm({
  actions,
  unsaved,
}: {
  actions: ReturnType<typeof useCampaignActions>;
  unsaved?: CampaignDraft | undefined;
}) {
  const me = useMe();
  const [email, setEmail] = useState<string | null>(null);
  const address = email ?? me.data?.email ?? '';
  const { test } = actions;
  return (
    <Stack gap="xs">
      <Text fw={600} size="sm" component="h3">
        Send a test
      </Text>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          test.mutate({ draft: unsaved, email: address.trim() });
        }}
      >
        <Group align="flex-end" gap="sm">
          <TextInput
            label="Test address"
            description={
              unsaved === undefined
                ? 'Gets the email once, with “[Test]” before its subject.'
                : 'Your changes are saved first.'
            }
            type="email"
            required
            value={address}
            onChange={(event) => {
              setEmail(event.currentTarget.value);
              test.reset();
            }}
            error={fieldError(test.error, 'email')}
            style={{ flex: 1, minWidth: 220 }}
          />
          <Button type="submit" variant="default" loading={test.isPending}>
            Send test
          </Button>
        </Group>
      </form>
      {test.isSuccess && (
        <Alert color="green" variant="light" role="status">
          Test sent to {test.variables.email}.
        </Alert>
      )}
      <ErrorAlert error={test.error} title="The test was not sent" />
    </Stack>
  );
}
