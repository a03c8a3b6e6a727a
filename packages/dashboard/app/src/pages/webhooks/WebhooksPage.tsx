import { Anchor, Badge, Button, Center, Group, Loader, Table, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';

import { api, unwrap } from '../../api/client';
import { useProjectId } from '../../api/session';
import { EmptyState } from '../../components/EmptyState';
import { ErrorAlert } from '../../components/ErrorAlert';
import { PageHeader } from '../../components/PageHeader';
import { projectPath } from '../../shell/navigation';
import { EnabledBadge } from './EnabledBadge';
import { NewEndpoint } from './NewEndpoint';

/** `/p/:projectId/webhooks`: the URLs Stamp posts the project's events to. */
export default function WebhooksPage() {
  const projectId = useProjectId();
  const [creating, setCreating] = useState(false);
  const endpoints = useQuery({
    queryKey: [projectId, 'webhook-endpoints'],
    queryFn: () => unwrap(api.GET('/webhook-endpoints')),
  });
  return (
    <>
      <PageHeader
        title="Webhooks"
        description="Stamp posts the events you choose to your URLs, signed, and retries failures."
        actions={
          creating ? undefined : <Button onClick={() => setCreating(true)}>New endpoint</Button>
        }
      />
      {creating && <NewEndpoint onClose={() => setCreating(false)} />}
      {endpoints.isPending && (
        <Center p="xl">
          <Loader aria-label="Loading the endpoints" />
        </Center>
      )}
      <ErrorAlert error={endpoints.error} title="The endpoints could not be loaded" />
      {endpoints.data?.length === 0 && !creating && (
        <EmptyState
          title="No webhook endpoints yet"
          action={<Button onClick={() => setCreating(true)}>Add an endpoint</Button>}
        >
          Add the URL of your server and choose events, such as email.bounced or contact.created:
          Stamp posts each one there as it happens.
        </EmptyState>
      )}
      {endpoints.data !== undefined && endpoints.data.length > 0 && (
        <Table.ScrollContainer minWidth={640}>
          <Table verticalSpacing="sm" aria-label="Webhook endpoints">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>URL</Table.Th>
                <Table.Th>Events</Table.Th>
                <Table.Th>State</Table.Th>
                <Table.Th>Created</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {endpoints.data.map((endpoint) => (
                <Table.Tr key={endpoint.id}>
                  <Table.Td>
                    <Anchor
                      component={Link}
                      to={projectPath(projectId, `webhooks/${encodeURIComponent(endpoint.id)}`)}
                      style={{ wordBreak: 'break-all' }}
                    >
                      {endpoint.url}
                    </Anchor>
                    {endpoint.description !== undefined && (
                      <Text size="xs" c="dimmed">
                        {endpoint.description}
                      </Text>
                    )}
                  </Table.Td>
                  <Table.Td>
                    <Group gap={4}>
                      {endpoint.eventTypes.map((type) => (
                        <Badge key={type} variant="outline" color="gray" tt="none">
                          {type === '*' ? 'every event' : type}
                        </Badge>
                      ))}
                    </Group>
                  </Table.Td>
                  <Table.Td>
                    <EnabledBadge endpoint={endpoint} />
                  </Table.Td>
                  <Table.Td>{new Date(endpoint.createdAt).toLocaleDateString()}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
    </>
  );
}
