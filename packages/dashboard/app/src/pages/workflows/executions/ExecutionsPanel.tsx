import { Button, Center, Group, Loader, NativeSelect, Stack, Table, Text } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Fragment, useEffect, useState } from 'react';

import { api, type Schema, unwrap } from '../../../api/client';
import { useCursorList } from '../../../api/lists';
import { useProjectId } from '../../../api/session';
import { ConfirmButton } from '../../../components/ConfirmButton';
import { EmptyState } from '../../../components/EmptyState';
import { ErrorAlert } from '../../../components/ErrorAlert';
import { LoadMore } from '../../../components/LoadMore';
import { ContactEmail } from './ContactEmail';
import { ExecutionHistory } from './ExecutionHistory';
import { StartRunForm } from './StartRunForm';
import { type ExecutionStatus, isActive, STATUSES, statusLabel } from './status';

/** How often the list of runs is read again while it is shown. */
const REFRESH_MS = 5_000;

/**
 * The runs of a workflow, latest first, filterable by status and refreshed as they go: each
 * with the steps it went through, cancelling one or every active run, and starting one.
 */
export function ExecutionsPanel({ workflow }: { workflow: Schema<'Workflow'> }) {
  const projectId = useProjectId();
  const queryClient = useQueryClient();
  const [status, setStatus] = useState<ExecutionStatus | ''>('');
  const [open, setOpen] = useState<ReadonlySet<string>>(new Set());
  const key = [projectId, 'workflows', workflow.id, 'executions'];
  const list = useCursorList([...key, status], (cursor) =>
    unwrap(
      api.GET('/workflows/{id}/executions', {
        params: {
          path: { id: workflow.id },
          query: {
            limit: 20,
            ...(cursor === undefined ? {} : { cursor }),
            ...(status === '' ? {} : { status }),
          },
        },
      }),
    ),
  );
  const { refetch } = list;
  useEffect(() => {
    const timer = setInterval(() => void refetch(), REFRESH_MS);
    return () => clearInterval(timer);
  }, [refetch]);

  const refresh = () => queryClient.invalidateQueries({ queryKey: key });
  const cancel = useMutation({
    mutationFn: (executionId: string) =>
      unwrap(
        api.DELETE('/workflows/{id}/executions/{executionId}', {
          params: { path: { id: workflow.id, executionId } },
        }),
      ),
    onSettled: refresh,
  });
  const cancelAll = useMutation({
    mutationFn: () =>
      unwrap(
        api.POST('/workflows/{id}/executions/cancel-all', {
          params: { path: { id: workflow.id } },
        }),
      ),
    onSuccess: (answer) =>
      notifications.show({
        title: 'Runs cancelled',
        message: `${answer.cancelled.toLocaleString()} ${answer.cancelled === 1 ? 'run was' : 'runs were'} cancelled.`,
      }),
    onSettled: refresh,
  });
  const toggle = (id: string) =>
    setOpen((current) => {
      const next = new Set(current);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });
  const stepName = (id: string | null) =>
    id === null ? '—' : (workflow.steps.find((step) => step.id === id)?.name ?? '—');

  return (
    <Stack gap="md">
      <StartRunForm workflow={workflow} />
      <Group justify="space-between" align="flex-end">
        <NativeSelect
          label="Status"
          data={[{ value: '', label: 'All runs' }, ...STATUSES]}
          value={status}
          onChange={(event) => {
            const next = STATUSES.find((item) => item.value === event.currentTarget.value);
            setStatus(next?.value ?? '');
          }}
          w={200}
        />
        <Group gap="sm">
          <Button variant="default" onClick={() => void refetch()} loading={list.isRefetching}>
            Refresh
          </Button>
          <ConfirmButton
            variant="light"
            color="red"
            title="Cancel every active run?"
            message="Every run that is running or waiting stops where it is. Runs that ended are not changed."
            confirmLabel="Cancel all runs"
            loading={cancelAll.isPending}
            onConfirm={() => cancelAll.mutate()}
          >
            Cancel all active runs
          </ConfirmButton>
        </Group>
      </Group>
      <ErrorAlert error={list.error} title="The runs could not be loaded" />
      <ErrorAlert error={cancel.error} title="The run could not be cancelled" />
      <ErrorAlert error={cancelAll.error} title="The runs could not be cancelled" />
      {list.isPending && (
        <Center p="md">
          <Loader size="sm" aria-label="Loading the runs" />
        </Center>
      )}
      {!list.isPending && list.items.length === 0 && (
        <EmptyState title={status === '' ? 'No runs yet' : 'No runs with this status'}>
          {workflow.enabled
            ? workflow.triggerType === 'EVENT'
              ? `A run starts each time "${workflow.eventName}" is tracked for a contact.`
              : 'Start a run for a contact with the form above.'
            : 'Enable the workflow to start runs when its event is tracked, or start one by hand above.'}
        </EmptyState>
      )}
      {list.items.length > 0 && (
        <Table.ScrollContainer minWidth={720}>
          <Table aria-label="Runs of the workflow">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Contact</Table.Th>
                <Table.Th>Status</Table.Th>
                <Table.Th>Current step</Table.Th>
                <Table.Th>Started</Table.Th>
                <Table.Th>Ended</Table.Th>
                <Table.Th>
                  <Text span size="sm" fw={700}>
                    Actions
                  </Text>
                </Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {list.items.map((execution) => (
                <Fragment key={execution.id}>
                  <Table.Tr>
                    <Table.Td>
                      <ContactEmail contactId={execution.contactId} />
                    </Table.Td>
                    <Table.Td>{statusLabel(execution.status)}</Table.Td>
                    <Table.Td>{stepName(execution.currentStepId)}</Table.Td>
                    <Table.Td>{new Date(execution.startedAt).toLocaleString()}</Table.Td>
                    <Table.Td>
                      {execution.completedAt === null
                        ? '—'
                        : new Date(execution.completedAt).toLocaleString()}
                    </Table.Td>
                    <Table.Td>
                      <Group gap="xs" wrap="nowrap">
                        <Button
                          size="compact-sm"
                          variant="default"
                          aria-expanded={open.has(execution.id)}
                          onClick={() => toggle(execution.id)}
                        >
                          {open.has(execution.id) ? 'Hide steps' : 'Show steps'}
                        </Button>
                        {isActive(execution.status) && (
                          <Button
                            size="compact-sm"
                            variant="subtle"
                            color="red"
                            loading={cancel.isPending && cancel.variables === execution.id}
                            onClick={() => cancel.mutate(execution.id)}
                          >
                            Cancel
                          </Button>
                        )}
                      </Group>
                    </Table.Td>
                  </Table.Tr>
                  {open.has(execution.id) && (
                    <Table.Tr>
                      <Table.Td colSpan={6}>
                        <ExecutionHistory
                          workflow={workflow}
                          executionId={execution.id}
                          version={`${execution.status}:${execution.history.length}`}
                        />
                      </Table.Td>
                    </Table.Tr>
                  )}
                </Fragment>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      {list.items.length > 0 && <LoadMore list={list} />}
    </Stack>
  );
}
