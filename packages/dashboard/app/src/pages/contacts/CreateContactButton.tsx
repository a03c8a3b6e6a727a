import { Button, Modal, Stack, Switch, Text, TextInput } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { notifications } from '@mantine/notifications';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type SubmitEvent, useState } from 'react';

import { api, unwrap } from '../../api/client';
import { useProjectId } from '../../api/session';
import { ErrorAlert, fieldError } from '../../components/ErrorAlert';
import { dataFromRows, type FieldRow, type RowProblems } from './dataFields';
import { DataFieldsEditor } from './DataFieldsEditor';

/**
 * A button opening the form that adds a contact (`POST /contacts`: email, subscription, custom
 * data). An address that is already a contact updates that contact instead.
 */
export function CreateContactButton() {
  const projectId = useProjectId();
  const queryClient = useQueryClient();
  const [opened, { open, close }] = useDisclosure(false);
  const [email, setEmail] = useState('');
  const [subscribed, setSubscribed] = useState(true);
  const [rows, setRows] = useState<FieldRow[]>([]);
  const [problems, setProblems] = useState<RowProblems>({});
  const create = useMutation({
    mutationFn: (data: Record<string, string | number | boolean>) =>
      unwrap(api.POST('/contacts', { body: { email: email.trim(), subscribed, data } })),
    onSuccess: async (contact) => {
      notifications.show({
        color: 'green',
        message: contact._meta.isNew
          ? `${contact.email} is now a contact`
          : `${contact.email} was already a contact: it is updated`,
      });
      close();
      setEmail('');
      setSubscribed(true);
      setRows([]);
      await queryClient.invalidateQueries({ queryKey: [projectId, 'contacts'] });
    },
  });
  const submit = (event: SubmitEvent) => {
    event.preventDefault();
    const result = dataFromRows(rows);
    setProblems(result.problems ?? {});
    if (result.data !== null) create.mutate(result.data);
  };
  return (
    <>
      <Button
        onClick={() => {
          create.reset();
          open();
        }}
      >
        Add contact
      </Button>
      <Modal opened={opened} onClose={close} title="Add a contact" size="lg" centered>
        <form onSubmit={submit}>
          <Stack>
            <TextInput
              label="Email"
              type="email"
              required
              value={email}
              onChange={(change) => setEmail(change.currentTarget.value)}
              error={fieldError(create.error, 'email')}
            />
            <Switch
              label="Subscribed to marketing emails"
              description="Campaigns go to subscribed contacts only; transactional emails go to everyone."
              checked={subscribed}
              onChange={(change) => setSubscribed(change.currentTarget.checked)}
            />
            <div>
              <Text size="sm" fw={500} mb={4}>
                Custom fields
              </Text>
              <DataFieldsEditor
                rows={rows}
                onChange={setRows}
                problems={problems}
                error={create.error}
              />
            </div>
            <ErrorAlert error={create.error} title="The contact was not added" />
            <Button type="submit" loading={create.isPending}>
              Add contact
            </Button>
          </Stack>
        </form>
      </Modal>
    </>
  );
}
