import { Card, Center, Loader, Stack, Table, Title, VisuallyHidden } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';

import { api, unwrap } from '../../api/client';
import { useMe, useProjectId } from '../../api/session';
import { ErrorAlert } from '../../components/ErrorAlert';
import { InviteMember } from './InviteMember';
import { MemberRow } from './MemberRow';
import { useGuard } from './RoleNote';

/** `settings/members`: who works on the project, their roles, invitations and leaving. */
export default function MembersTab() {
  const projectId = useProjectId();
  const me = useMe();
  const guard = useGuard('members.manage', 'change roles or remove members');
  const [actionError, setActionError] = useState<unknown>(null);
  const members = useQuery({
    queryKey: [projectId, 'members'],
    queryFn: () =>
      unwrap(api.GET('/projects/{id}/members', { params: { path: { id: projectId } } })),
  });
  return (
    <Stack>
      <InviteMember />
      <Card withBorder component="section" aria-labelledby="members-title">
        <Title order={2} size="h4" mb="sm" id="members-title">
          Members
        </Title>
        {members.isPending && (
          <Center p="md">
            <Loader size="sm" aria-label="Loading the members" />
          </Center>
        )}
        <ErrorAlert error={members.error} title="The members could not be loaded" />
        <ErrorAlert error={actionError} title="The change did not work" />
        {members.data !== undefined && (
          <Table.ScrollContainer minWidth={560}>
            <Table verticalSpacing="sm" aria-label="Members">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Person</Table.Th>
                  <Table.Th>Role</Table.Th>
                  <Table.Th>Member since</Table.Th>
                  <Table.Th>
                    <VisuallyHidden>Actions</VisuallyHidden>
                  </Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {members.data.map((member) => (
                  <MemberRow
                    key={member.userId}
                    member={member}
                    isSelf={member.userId === me.data?.id}
                    noteId={guard.describedBy}
                    onError={setActionError}
                  />
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        )}
        {guard.note}
      </Card>
    </Stack>
  );
}
