import { Button, Card, Group, Select, Stack, Text, TextInput, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';

import { api, unwrap } from '../../api/client';
import { useProjectId } from '../../api/session';
import { ErrorAlert, fieldError } from '../../components/ErrorAlert';
import { useGuard } from './RoleNote';

type InvitedRole = 'ADMIN' | 'MEMBER';

const ROLES: readonly { value: InvitedRole; label: string }[] = [
  { value: 'MEMBER', label: 'Member: works with the project’s data' },
  { value: 'ADMIN', label: 'Admin: also manages members, keys and billing' },
];

const isRole = (value: string | null): value is InvitedRole =>
  ROLES.some((role) => role.value === value);

/** Adds a person to the project (`POST /projects/:id/members`), or emails them an invitation. */
export function InviteMember() {
  const projectId = useProjectId();
  const queryClient = useQueryClient();
  const guard = useGuard('members.manage', 'invite people');
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<InvitedRole>('MEMBER');
  const invite = useMutation({
    mutationFn: () =>
      unwrap(
        api.POST('/projects/{id}/members', {
          params: { path: { id: projectId } },
          body: { email: email.trim(), role },
        }),
      ),
    onSuccess: () => {
      setEmail('');
      void queryClient.invalidateQueries({ queryKey: [projectId, 'members'] });
    },
  });
  return (
    <Card withBorder component="section" aria-labelledby="invite-title">
      <Title order={2} size="h4" mb="sm" id="invite-title">
        Invite someone
      </Title>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          invite.mutate();
        }}
      >
        <Stack gap="xs">
          <ErrorAlert error={invite.error} title="The invitation was not sent" />
          <Group align="flex-end">
            <TextInput
              label="Email address"
              type="email"
              required
              value={email}
              onChange={(event) => setEmail(event.currentTarget.value)}
              error={fieldError(invite.error, 'email')}
              disabled={!guard.allowed}
              aria-describedby={guard.describedBy}
              w={280}
            />
            <Select
              label="Role"
              data={ROLES}
              value={role}
              allowDeselect={false}
              onChange={(value) => {
                if (isRole(value)) setRole(value);
              }}
              error={fieldError(invite.error, 'role')}
              disabled={!guard.allowed}
              w={340}
            />
            <Button type="submit" loading={invite.isPending} disabled={!guard.allowed}>
              Invite
            </Button>
          </Group>
          {guard.note}
          {invite.isSuccess && (
            <Text size="sm" role="status">
              {'invited' in invite.data
                ? `An invitation is on its way to ${invite.data.email}: they join when they sign up with its link.`
                : `${invite.data.email} already had an account and is now a member.`}
            </Text>
          )}
        </Stack>
      </form>
    </Card>
  );
}
