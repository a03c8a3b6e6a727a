import { Alert, Button, Card, Group, Text, TextInput } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';

import { api, unwrap } from '../../api/client';
import { useMe } from '../../api/session';
import { ErrorAlert, fieldError } from '../../components/ErrorAlert';
import type { TemplateDraft } from './draft';

/**
 * Sends the template as it is in the editor to one address. The API sends tests of campaigns
 * (`POST /campaigns/:id/test`; `POST /v1/send` takes API keys only, never a session), so the
 * test goes through a draft campaign made of the template's fields, deleted right after.
 */
async function sendTest(draft: TemplateDraft, email: string): Promise<void> {
  const optional = (value: string) => (value.trim() === '' ? null : value.trim());
  const created = await unwrap(
    api.POST('/campaigns', {
      body: {
        name: `Test of template “${draft.name || 'Untitled'}”`.slice(0, 255),
        subject: draft.subject,
        body: draft.body,
        from: draft.from.trim(),
        fromName: optional(draft.fromName),
        replyTo: optional(draft.replyTo),
        audienceType: 'ALL',
      },
    }),
  );
  const id = created.data.id;
  try {
    await unwrap(api.POST('/campaigns/{id}/test', { params: { path: { id } }, body: { email } }));
  } finally {
    await unwrap(api.DELETE('/campaigns/{id}', { params: { path: { id } } }));
  }
}

/** "Send a test": the template, as edited, to one address (the signed-in user's by default). */
export function SendTemplateTest({ draft }: { draft: TemplateDraft }) {
  const me = useMe();
  const [email, setEmail] = useState<string | null>(null);
  const address = email ?? me.data?.email ?? '';
  const test = useMutation({ mutationFn: (to: string) => sendTest(draft, to) });
  const noSender = draft.from.trim() === '';
  return (
    <Card withBorder>
      <Text fw={600} component="h2" mb={4}>
        Send a test
      </Text>
      <Text size="sm" c="dimmed" mb="sm">
        The email as it is in the editor, with “[Test]” before its subject. It goes out through a
        draft campaign that is deleted right after.
      </Text>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          test.mutate(address.trim());
        }}
      >
        <Group align="flex-end" gap="sm">
          <TextInput
            label="Send to"
            type="email"
            required
            value={address}
            onChange={(event) => {
              setEmail(event.currentTarget.value);
              test.reset();
            }}
            error={fieldError(test.error, 'email')}
            style={{ flex: 1, minWidth: 200 }}
          />
          <Button type="submit" variant="default" loading={test.isPending} disabled={noSender}>
            Send test
          </Button>
        </Group>
      </form>
      {noSender && (
        <Text size="sm" c="dimmed" mt="xs">
          Fill in the From address to send a test.
        </Text>
      )}
      {test.isSuccess && (
        <Alert color="green" variant="light" mt="sm" role="status">
          Test sent to {address}.
        </Alert>
      )}
      <ErrorAlert error={test.error} title="The test was not sent" />
    </Card>
  );
}
