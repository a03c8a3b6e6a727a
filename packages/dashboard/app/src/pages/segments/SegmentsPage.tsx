import { Anchor, Badge, Button, Center, Loader, Table, Text } from '@mantine/core';
import { Link } from 'react-router';

import { useProjectId } from '../../api/session';
import { EmptyState } from '../../components/EmptyState';
import { ErrorAlert } from '../../components/ErrorAlert';
import { PageHeader } from '../../components/PageHeader';
import { projectPath } from '../../shell/navigation';
import { useSegments } from './queries';

/** `/p/:projectId/segments`: every segment with its type and member count. */
export default function SegmentsPage() {
  const projectId = useProjectId();
  const segments = useSegments();
  const newButton = (
    <Button component={Link} to={projectPath(projectId, 'segments/new')}>
      New segment
    </Button>
  );
  return (
    <>
      <PageHeader
        title="Segments"
        description="Groups of contacts, by their data, events and email activity, or a fixed list."
        actions={newButton}
      />
      <ErrorAlert error={segments.error} title="The segments could not be loaded" />
      {segments.isPending && (
        <Center p="xl">
          <Loader aria-label="Loading the segments" />
        </Center>
      )}
      {segments.data?.length === 0 && (
        <EmptyState title="No segments yet" action={newButton}>
          Create a segment to send a campaign to some of your contacts, for example everyone on the
          pro plan who signed up this month, or a list of addresses you paste in.
        </EmptyState>
      )}
      {segments.data !== undefined && segments.data.length > 0 && (
        <Table.ScrollContainer minWidth={640}>
          <Table striped highlightOnHover>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Name</Table.Th>
                <Table.Th>Type</Table.Th>
                <Table.Th ta="right">Members</Table.Th>
                <Table.Th>Entry and exit events</Table.Th>
                <Table.Th>Last changed</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {segments.data.map((segment) => (
                <Table.Tr key={segment.id}>
                  <Table.Td>
                    <Anchor component={Link} to={projectPath(projectId, `segments/${segment.id}`)}>
                      {segment.name}
                    </Anchor>
                    {segment.description !== null && segment.description !== '' && (
                      <Text size="xs" c="dimmed" lineClamp={1}>
                        {segment.description}
                      </Text>
                    )}
                  </Table.Td>
                  <Table.Td>
                    <Badge variant="light" color={segment.type === 'DYNAMIC' ? 'blue' : 'grape'}>
                      {segment.type === 'DYNAMIC' ? 'Dynamic' : 'Static'}
                    </Badge>
                  </Table.Td>
                  <Table.Td ta="right">{segment.memberCount.toLocaleString()}</Table.Td>
                  <Table.Td>{segment.trackMembership ? 'Tracked' : 'Off'}</Table.Td>
                  <Table.Td>{new Date(segment.updatedAt).toLocaleString()}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
    </>
  );
}
