import { Anchor, Button, Card, Center, Group, Loader, Table, Text, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';

import { api, type Schema, unwrap } from '../../api/client';
import { useProjectId } from '../../api/session';
import { EmptyState } from '../../components/EmptyState';
import { ErrorAlert } from '../../components/ErrorAlert';
import { projectPath } from '../../shell/navigation';
import { useSegmentMembers } from './queries';

const PAGE_SIZE = 25;

/**
 * The members of a segment, a page at a time (live for a dynamic segment); each member of a
 * static segment can be removed.
 */
export function SegmentMembers({ segment }: { segment: Schema<'Segment'> }) {
  const projectId = useProjectId();
  const queryClient = useQueryClient();
  const [page, setPage] = useState(1);
  const members = useSegmentMembers(segment.id, page, PAGE_SIZE);
  const remove = useMutation({
    mutationFn: (email: string) =>
      unwrap(
        api.DELETE('/segments/{id}/members', {
          params: { path: { id: segment.id } },
          body: { emails: [email] },
        }),
      ),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: [projectId, 'segments'] }),
  });
  const data = members.data;
  const totalPages = Math.max(1, data?.totalPages ?? 1);
  return (
    <Card withBorder>
      <Group justify="space-between" mb="sm">
        <Title order={2} size="h4">
          Members
        </Title>
        {data !== undefined && (
          <Text size="sm" c="dimmed">
            {data.total.toLocaleString()} {data.total === 1 ? 'contact' : 'contacts'}
          </Text>
        )}
      </Group>
      <ErrorAlert error={members.error} title="The members could not be loaded" />
      <ErrorAlert error={remove.error} title="The contact could not be removed" />
      {members.isPending && (
        <Center p="md">
          <Loader size="sm" aria-label="Loading the members" />
        </Center>
      )}
      {data?.total === 0 && (
        <EmptyState title="No members">
          {segment.type === 'STATIC'
            ? 'Paste email addresses above to add contacts to this segment.'
            : 'No contact matches these filters yet. Change the filters, or add contacts whose data or events match.'}
        </EmptyState>
      )}
      {data !== undefined && data.total > 0 && (
        <>
          <Table.ScrollContainer minWidth={560}>
            <Table aria-label="Members of the segment">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Email</Table.Th>
                  <Table.Th>Subscribed</Table.Th>
                  <Table.Th>Added to the project</Table.Th>
                  {segment.type === 'STATIC' && (
                    <Table.Th>
                      <Text span size="sm" fw={700}>
                        Actions
                      </Text>
                    </Table.Th>
                  )}
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {data.data.map((member) => (
                  <Table.Tr key={member.id}>
                    <Table.Td>
                      <Anchor
                        component={Link}
                        to={projectPath(projectId, `contacts/${member.id}`)}
                        size="sm"
                      >
                        {member.email}
                      </Anchor>
                    </Table.Td>
                    <Table.Td>{member.subscribed ? 'Yes' : 'No'}</Table.Td>
                    <Table.Td>{new Date(member.createdAt).toLocaleDateString()}</Table.Td>
                    {segment.type === 'STATIC' && (
                      <Table.Td>
                        <Button
                          size="compact-sm"
                          variant="subtle"
                          color="red"
                          aria-label={`Remove ${member.email} from the segment`}
                          loading={remove.isPending && remove.variables === member.email}
                          onClick={() => remove.mutate(member.email)}
                        >
                          Remove
                        </Button>
                      </Table.Td>
                    )}
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
          <Group justify="center" mt="sm" gap="sm">
            <Button
              variant="default"
              size="compact-sm"
              disabled={page <= 1}
              onClick={() => setPage((current) => Math.max(1, current - 1))}
            >
              Previous page
            </Button>
            <Text size="sm" role="status">
              Page {page} of {totalPages}
            </Text>
            <Button
              variant="default"
              size="compact-sm"
              disabled={page >= totalPages}
              onClick={() => setPage((current) => current + 1)}
            >
              Next page
            </Button>
          </Group>
        </>
      )}
    </Card>
  );
}
