import { Button, Card, Group, Text, TextInput } from '@mantine/core';
import { type SubmitEvent, useState } from 'react';

import { ApiError, type Schema } from '../../api/client';
import { ErrorAlert, fieldError } from '../../components/ErrorAlert';
import { useUpdateContact } from './useContact';

/** The email address of a contact, changed with `PATCH /contacts/:id`. */
export function ContactEmailForm({ contact }: { contact: Schema<'Contact'> }) {
  const update = useUpdateContact(contact.id);
  const [email, setEmail] = useState(contact.email);
  const submit = (event: SubmitEvent) => {
    event.preventDefault();
    update.mutate({ email: email.trim() });
  };
  // Another contact with this address answers 409 without a field: it still concerns the email.
  const conflict =
    update.error instanceof ApiError && update.error.status === 409
      ? update.error.message
      : undefined;
  const changed = email.trim().toLowerCase() !== contact.email;
  return (
    <Card withBorder>
      <form onSubmit={submit}>
        <Text fw={600} component="h2" mb="xs">
          Email address
        </Text>
        <Group align="flex-start" gap="xs">
          <TextInput
            label="Email"
            type="email"
            required
            value={email}
            onChange={(change) => setEmail(change.currentTarget.value)}
            error={fieldError(update.error, 'email') ?? conflict}
            style={{ flex: 1 }}
          />
          <Button type="submit" mt={25} disabled={!changed} loading={update.isPending}>
            Change
          </Button>
        </Group>
        {conflict === undefined && (
          <ErrorAlert error={update.error} title="The email was not changed" />
        )}
      </form>
    </Card>
  );
}
