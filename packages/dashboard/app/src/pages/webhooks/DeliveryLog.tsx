import {
  Badge,
  Button,
  Card,
  Center,
  Group,
  Loader,
  Select,
  Table,
  Text,
  Title,
  VisuallyHidden,
} from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';

import { api, type Schema, unwrap } from '../../api/client';
import { useCursorList } from '../../api/lists';
import { useProjectId } from '../../api/session';
import { EmptyState } from '../../components/EmptyState';
import { ErrorAlert } from '../../components/ErrorAlert';
import { LoadMore } from '../../components/LoadMore';
import { SUCCESS_GREEN } from '../domains/StatusBadge';

type Delivery = Schema<'WebhookDelivery'>;
type Status = Delivery['status'];

const STATUSES: Record<Status, { label: string; color: string }> = {
  PENDING: { label: 'Pending', color: 'yellow' },
  SUCCEEDED: { label: 'Succeeded', color: SUCCESS_GREEN },
  FAILED: { label: 'Failed', color: 'red' },
};

const isStatus = (value: string | null): value is Status =>
  value !== null && Object.hasOwn(STATUSES, value);

/** The retry button of one delivery. */
function RetryButton({
  endpoint,
  delivery,
  onRetried,
}: {
  endpoint: Schema<'WebhookEndpoint'>;
  delivery: Delivery;
  onRetried: () => void;
}) {
  const retry = useMutation({
    mutationFn: () =>
      unwrap(
        api.POST('/webhook-endpoints/{id}/deliveries/{deliveryId}/retry', {
          params: { path: { id: endpoint.id, deliveryId: delivery.id } },
        }),
      ),
    onSuccess: onRetried,
  });
  return (
    <>
      <Button
        size="compact-sm"
        variant="light"
        disabled={!endpoint.enabled}
        loading={retry.isPending}
        onClick={() => retry.mutate()}
        aria-label={`Retry the ${delivery.eventType} delivery of ${new Date(delivery.createdAt).toLocaleString()}`}
      >
        Retry
      </Button>
      {retry.isError && (
        <Text size="xs" c="red.8" role="alert">
          {retry.error.message}
        </Text>
      )}
    </>
  );
}

/** The deliveries of an endpoint, newest first, with their outcome and a retry button. */
export function DeliveryLog({ endpoint }: { endpoint: Schema<'WebhookEndpoint'> }) {
  const projectId = useProjectId();
  const queryClient = useQueryClient();
  const [status, setStatus] = useState<Status | null>(null);
  const key = [projectId, 'webhook-endpoints', endpoint.id, 'deliveries'];
  const list = useCursorList([...key, status], (cursor) =>
    unwrap(
      api.GET('/webhook-endpoints/{id}/deliveries', {
        params: {
          path: { id: endpoint.id },
          query: {
            limit: 25,
            ...(cursor === undefined ? {} : { cursor }),
            ...(status === null ? {} : { status }),
          },
        },
      }),
    ),
  );
  const refresh = () => queryClient.invalidateQueries({ queryKey: key });
  // While a delivery waits for its next attempt, the log refreshes itself.
  const pending = list.items.some((delivery) => delivery.status === 'PENDING');
  useEffect(() => {
    if (!pending) return undefined;
    const timer = setInterval(() => {
      void queryClient.invalidateQueries({
        queryKey: [projectId, 'webhook-endpoints', endpoint.id, 'deliveries'],
      });
    }, 3000);
    return () => clearInterval(timer);
  }, [pending, queryClient, projectId, endpoint.id]);
  return (
    <Card withBorder component="section" aria-labelledby="delivery-log-title">
      <Group justify="space-between" mb="sm">
        <Title order={2} size="h4" id="delivery-log-title">
          Delivery log
        </Title>
        <Group gap="sm">
          <Select
            aria-label="Show deliveries"
            data={[
              { value: 'ALL', label: 'All deliveries' },
              ...Object.entries(STATUSES).map(([value, look]) => ({ value, label: look.label })),
            ]}
            value={status ?? 'ALL'}
            allowDeselect={false}
            onChange={(value) => setStatus(isStatus(value) ? value : null)}
            w={180}
          />
          <Button variant="default" onClick={() => void refresh()} loading={list.isRefetching}>
            Refresh
          </Button>
        </Group>
      </Group>
      {!endpoint.enabled && (
        <Text size="sm" c="dimmed" mb="sm">
          Enable the endpoint to retry its deliveries.
        </Text>
      )}
      {list.isPending && (
        <Center p="md">
          <Loader size="sm" aria-label="Loading the deliveries" />
        </Center>
      )}
      <ErrorAlert error={list.error} title="The deliveries could not be loaded" />
      {list.isSuccess && list.items.length === 0 && (
        <EmptyState title={status === null ? 'No deliveries yet' : 'No such deliveries'}>
          {status === null
            ? 'When one of the chosen events happens, Stamp posts it here and logs the answer of your server.'
            : 'Show all deliveries to see the others.'}
        </EmptyState>
      )}
      {list.items.length > 0 && (
        <>
          <Table.ScrollContainer minWidth={760}>
            <Table verticalSpacing="xs" aria-label="Deliveries">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Created</Table.Th>
                  <Table.Th>Event</Table.Th>
                  <Table.Th>Status</Table.Th>
                  <Table.Th>Attempts</Table.Th>
                  <Table.Th>Last answer</Table.Th>
                  <Table.Th>Latency</Table.Th>
                  <Table.Th>Next attempt</Table.Th>
                  <Table.Th>
                    <VisuallyHidden>Actions</VisuallyHidden>
                  </Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {list.items.map((delivery) => (
                  <Table.Tr key={delivery.id}>
                    <Table.Td>{new Date(delivery.createdAt).toLocaleString()}</Table.Td>
                    <Table.Td>
                      <Text size="sm" ff="monospace">
                        {delivery.eventType}
                      </Text>
                    </Table.Td>
                    <Table.Td>
                      <Badge color={STATUSES[delivery.status].color} variant="light">
                        {STATUSES[delivery.status].label}
                      </Badge>
                      {delivery.lastError !== undefined && (
                        <Text size="xs" c="dimmed" maw={240}>
                          {delivery.lastError}
                        </Text>
                      )}
                    </Table.Td>
                    <Table.Td>{delivery.attempts}</Table.Td>
                    <Table.Td>{delivery.lastStatusCode ?? '—'}</Table.Td>
                    <Table.Td>
                      {delivery.lastLatencyMs === undefined ? '—' : `${delivery.lastLatencyMs} ms`}
                    </Table.Td>
                    <Table.Td>
                      {delivery.nextAttemptAt === undefined
                        ? '—'
                        : new Date(delivery.nextAttemptAt).toLocaleString()}
                    </Table.Td>
                    <Table.Td>
                      <RetryButton
                        endpoint={endpoint}
                        delivery={delivery}
                        onRetried={() => void refresh()}
                      />
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
  );
}
