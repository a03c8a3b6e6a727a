import { Anchor, Code, Loader, Table, Text } from '@mantine/core';
import { Link } from 'react-router';

import { api, unwrap } from '../../api/client';
import { useCursorList } from '../../api/lists';
import { useProjectId } from '../../api/session';
import { EmptyState } from '../../components/EmptyState';
import { ErrorAlert } from '../../components/ErrorAlert';
import { LoadMore } from '../../components/LoadMore';
import { PageHeader } from '../../components/PageHeader';
import { projectPath } from '../../shell/navigation';
import { formatDateTime } from '../activity/format';

/**
 * `/p/:projectId/outbox`: the messages the local outbox captured instead of delivering them
 * (`GET /outbox`, newest first, 50 at a time), each a link to the message.
 */
export default function OutboxPage() {
  const projectId = useProjectId();
  const list = useCursorList([projectId, 'outbox', 'list'], (cursor) =>
    unwrap(
      api.GET('/outbox', {
        params: { query: { limit: 50, ...(cursor === undefined ? {} : { cursor }) } },
      }),
    ),
  );
  return (
    <>
      <PageHeader
        title="Outbox"
        description="Emails kept here instead of being delivered: everything sent from the sandbox address, and all mail when no mail server is set up."
      />
      <ErrorAlert error={list.error} title="The outbox could not be loaded" />
      {list.isPending && <Loader aria-label="Loading the outbox" />}
      {list.isSuccess && list.items.length === 0 && (
        <EmptyState title="The outbox is empty">
          Send an email from an address of the sandbox domain, for example{' '}
          <Code>hello@sandbox.stamp.localhost</Code>, to see exactly what your recipients would get.
        </EmptyState>
      )}
      {list.items.length > 0 && (
        <>
          <Table.ScrollContainer minWidth={640}>
            <Table striped highlightOnHover aria-label="Captured emails">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Subject</Table.Th>
                  <Table.Th>To</Table.Th>
                  <Table.Th>From</Table.Th>
                  <Table.Th>Captured</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {list.items.map((message) => (
                  <Table.Tr key={message.id}>
                    <Table.Td>
                      <Anchor
                        component={Link}
                        size="sm"
                        to={projectPath(projectId, `outbox/${encodeURIComponent(message.id)}`)}
                      >
                        {message.subject === '' ? '(no subject)' : message.subject}
                      </Anchor>
                    </Table.Td>
                    <Table.Td>
                      <Text size="sm">{message.to}</Text>
                    </Table.Td>
                    <Table.Td>
                      <Text size="sm">{message.from}</Text>
                    </Table.Td>
                    <Table.Td style={{ whiteSpace: 'nowrap' }}>
                      <Text size="sm" component="time" dateTime={message.capturedAt}>
                        {formatDateTime(message.capturedAt)}
                      </Text>
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
          <LoadMore list={list} />
        </>
      )}
    </>
  );
}
