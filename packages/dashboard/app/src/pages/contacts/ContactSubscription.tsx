import { Card, Switch, Text } from '@mantine/core';

import type { Schema } from '../../api/client';
import { ErrorAlert } from '../../components/ErrorAlert';
import { useUpdateContact } from './useContact';

/** The subscription of a contact, switched on or off at once (`PATCH /contacts/:id`). */
export function ContactSubscription({ contact }: { contact: Schema<'Contact'> }) {
  const update = useUpdateContact(contact.id);
  const checked = update.isPending
    ? (update.variables.subscribed ?? contact.subscribed)
    : contact.subscribed;
  return (
    <Card withBorder>
      <Text fw={600} component="h2" mb="xs">
        Subscription
      </Text>
      <Switch
        label="Subscribed to marketing emails"
        description={
          checked
            ? 'Campaigns and marketing emails go to this contact.'
            : 'Only transactional emails go to this contact.'
        }
        checked={checked}
        disabled={update.isPending}
        onChange={(change) => update.mutate({ subscribed: change.currentTarget.checked })}
      />
      <ErrorAlert error={update.error} title="The subscription was not changed" />
    </Card>
  );
}
