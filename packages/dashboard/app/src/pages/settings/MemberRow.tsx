import { Select, Table, Text } from '@mantine/core';
import { may } from '@stamp/contracts/permissions';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useNavigate } from 'react-router';

import { api, type Schema, unwrap } from '../../api/client';
import { useProjectId, useRole } from '../../api/session';
import { ConfirmButton } from '../../components/ConfirmButton';

type Member = Schema<'Member'>;
type Role = Member['role'];

const ROLE_WORDS: Record<Role, string> = { OWNER: 'Owner', ADMIN: 'Admin', MEMBER: 'Member' };

const ROLES: readonly Role[] = ['OWNER', 'ADMIN', 'MEMBER'];

const isRole = (value: string | null): value is Role => ROLES.some((role) => role === value);

/** One member: role (changed in place when allowed) and removal, or leaving for oneself. */
export function MemberRow({
  member,
  isSelf,
  noteId,
  onError,
}: {
  member: Member;
  isSelf: boolean;
  /** Id of the note saying who may manage members (when the user may not). */
  noteId: string | undefined;
  /** Receives the error of a change or removal (null when another starts). */
  onError: (error: unknown) => void;
}) {
  const projectId = useProjectId();
  const myRole = useRole();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const key = [projectId, 'members'];
  // Changing an OWNER, or making one, takes an OWNER; others take members.manage.
  const canManage =
    may(myRole, 'members.manage') && (member.role !== 'OWNER' || may(myRole, 'owners.manage'));
  const roles = ROLES.filter(
    (role) => role !== 'OWNER' || may(myRole, 'owners.manage') || member.role === 'OWNER',
  );
  const change = useMutation({
    mutationFn: (role: Role) =>
      unwrap(
        api.PATCH('/projects/{id}/members/{userId}', {
          params: { path: { id: projectId, userId: member.userId } },
          body: { role },
        }),
      ),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: key });
      if (isSelf) await queryClient.invalidateQueries({ queryKey: ['projects'] });
    },
    onMutate: () => onError(null),
    onError,
  });
  const remove = useMutation({
    mutationFn: () =>
      unwrap(
        api.DELETE('/projects/{id}/members/{userId}', {
          params: { path: { id: projectId, userId: member.userId } },
        }),
      ),
    onSuccess: async () => {
      if (isSelf) {
        queryClient.removeQueries({ queryKey: [projectId] });
        await queryClient.invalidateQueries({ queryKey: ['projects'] });
        void navigate('/');
        return;
      }
      await queryClient.invalidateQueries({ queryKey: key });
    },
    onMutate: () => onError(null),
    onError,
  });
  const who = member.name === '' ? member.email : member.name;
  return (
    <Table.Tr>
      <Table.Td>
        <Text size="sm" fw={600}>
          {who}
          {isSelf && ' (you)'}
        </Text>
        {member.name !== '' && (
          <Text size="xs" c="dimmed">
            {member.email}
          </Text>
        )}
      </Table.Td>
      <Table.Td>
        <Select
          aria-label={`Role of ${member.email}`}
          data={roles.map((role) => ({ value: role, label: ROLE_WORDS[role] }))}
          value={member.role}
          allowDeselect={false}
          disabled={!canManage || change.isPending}
          aria-describedby={canManage ? undefined : noteId}
          onChange={(value) => {
            if (isRole(value) && value !== member.role) change.mutate(value);
          }}
          w={140}
          size="xs"
        />
      </Table.Td>
      <Table.Td>{new Date(member.createdAt).toLocaleDateString()}</Table.Td>
      <Table.Td>
        {isSelf ? (
          <ConfirmButton
            size="compact-sm"
            variant="light"
            color="red"
            title="Leave this project?"
            message="You lose access to the project at once; a member who manages members can invite you again."
            confirmLabel="Leave the project"
            onConfirm={() => remove.mutate()}
            loading={remove.isPending}
          >
            Leave
          </ConfirmButton>
        ) : (
          <ConfirmButton
            size="compact-sm"
            variant="light"
            color="red"
            title={`Remove ${who}?`}
            message={`${member.email} loses access to the project at once.`}
            confirmLabel="Remove"
            onConfirm={() => remove.mutate()}
            loading={remove.isPending}
            disabled={!canManage}
            aria-label={`Remove ${member.email}`}
            aria-describedby={canManage ? undefined : noteId}
          >
            Remove
          </ConfirmButton>
        )}
      </Table.Td>
    </Table.Tr>
  );
}
