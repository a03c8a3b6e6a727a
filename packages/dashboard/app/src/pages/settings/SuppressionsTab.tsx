import {
  Button,
  Card,
  Center,
  Group,
  Loader,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
  VisuallyHidden,
} from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';

import { api, type Schema, unwrap } from '../../api/client';
import { useCursorList } from '../../api/lists';
import { useProjectId } from '../../api/session';
import { ConfirmButton } from '../../components/ConfirmButton';
import { EmptyState } from '../../components/EmptyState';
import { ErrorAlert, fieldError } from '../../components/ErrorAlert';
import { LoadMore } from '../../components/LoadMore';

const REASONS: Record<Schema<'Suppression'>['reason'], string> = {
  HARD_BOUNCE: 'The address bounced',
  COMPLAINT: 'Marked an email as spam',
  MANUAL: 'Added by hand',
};

/** `settings/suppressions`: addresses Stamp never sends to, added by hand or after a bounce. */
export default function SuppressionsTab() {
  const projectId = useProjectId();
  const queryClient = useQueryClient();
  const key = [projectId, 'suppressions'];
  const [email, setEmail] = useState('');
  const list = useCursorList(key, (cursor) =>
    unwrap(
      api.GET('/suppressions', {
        params: { query: { limit: 50, ...(cursor === undefined ? {} : { cursor }) } },
      }),
    ),
  );
  const add = useMutation({
    mutationFn: () => unwrap(api.POST('/suppressions', { body: { email: email.trim() } })),
    onSuccess: () => {
      setEmail('');
      void queryClient.invalidateQueries({ queryKey: key });
    },
  });
  const remove = useMutation({
    mutationFn: (address: string) =>
      unwrap(api.DELETE('/suppressions/{email}', { params: { path: { email: address } } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: key }),
  });
  return (
    <Stack>
      <Card withBorder component="section" aria-labelledby="suppress-title">
        <Title order={2} size="h4" mb="xs" id="suppress-title">
          Suppress an address
        </Title>
        <Text size="sm" c="dimmed" mb="sm">
          Stamp accepts sends to a suppressed address but never delivers them. Addresses that bounce
          or complain are added on their own.
        </Text>
        <form
          onSubmit={(event) => {
            event.preventDefault();
            add.mutate();
          }}
        >
          <Stack gap="xs">
            <ErrorAlert error={add.error} title="The address was not suppressed" />
            <Group align="flex-end">
              <TextInput
                label="Email address"
                type="email"
                required
                value={email}
                onChange={(event) => setEmail(event.currentTarget.value)}
                error={fieldError(add.error, 'email')}
                w={320}
              />
              <Button type="submit" loading={add.isPending}>
                Suppress
              </Button>
            </Group>
            {add.isSuccess && (
              <Text size="sm" role="status">
                {add.data.email} is suppressed.
              </Text>
            )}
          </Stack>
        </form>
      </Card>
      <Card withBorder component="section" aria-labelledby="suppressions-title">
        <Title order={2} size="h4" mb="sm" id="suppressions-title">
          Suppressed addresses
        </Title>
        {list.isPending && (
          <Center p="md">
            <Loader size="sm" aria-label="Loading the suppressed addresses" />
          </Center>
        )}
        <ErrorAlert error={list.error} title="The suppressed addresses could not be loaded" />
        <ErrorAlert error={remove.error} title="The address was not removed" />
        {list.isSuccess && list.items.length === 0 && (
          <EmptyState title="No suppressed addresses">
            Addresses that bounce or mark your email as spam appear here. Add one by hand above to
            stop sending to it.
          </EmptyState>
        )}
        {list.items.length > 0 && (
          <>
            <Table.ScrollContainer minWidth={560}>
              <Table verticalSpacing="xs" aria-label="Suppressed addresses">
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>Email address</Table.Th>
                    <Table.Th>Reason</Table.Th>
                    <Table.Th>Since</Table.Th>
                    <Table.Th>
                      <VisuallyHidden>Actions</VisuallyHidden>
                    </Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {list.items.map((item) => (
                    <Table.Tr key={item.email}>
                      <Table.Td>{item.email}</Table.Td>
                      <Table.Td>{REASONS[item.reason]}</Table.Td>
                      <Table.Td>{new Date(item.createdAt).toLocaleString()}</Table.Td>
                      <Table.Td>
                        <ConfirmButton
                          size="compact-sm"
                          variant="light"
                          color="red"
                          title={`Send to ${item.email} again?`}
                          message="Stamp will deliver email to this address again. If it bounced, it may bounce again and hurt your sending reputation."
                          confirmLabel="Remove the suppression"
                          onConfirm={() => remove.mutate(item.email)}
                          loading={remove.isPending && remove.variables === item.email}
                          aria-label={`Remove ${item.email} from the suppressions`}
                        >
                          Remove
                        </ConfirmButton>
                      </Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </Table.ScrollContainer>
            <LoadMore list={list} />
          </>
        )}
      </Card>
    </Stack>
  );
}
