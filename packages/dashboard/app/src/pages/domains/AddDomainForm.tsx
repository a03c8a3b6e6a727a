import { Button, Group, Stack, TextInput } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';

import { api, unwrap } from '../../api/client';
import { useProjectId } from '../../api/session';
import { ErrorAlert, fieldError } from '../../components/ErrorAlert';

/** The form that adds a sender domain (`POST /domains`). */
export function AddDomainForm() {
  const projectId = useProjectId();
  const queryClient = useQueryClient();
  const [domain, setDomain] = useState('');
  const add = useMutation({
    mutationFn: () => unwrap(api.POST('/domains', { body: { domain: domain.trim() } })),
    onSuccess: () => {
      setDomain('');
      void queryClient.invalidateQueries({ queryKey: [projectId, 'domains'] });
      void queryClient.invalidateQueries({ queryKey: [projectId, 'setup-state'] });
    },
  });
  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        add.mutate();
      }}
    >
      <Stack gap="xs" mb="lg">
        <ErrorAlert error={add.error} title="The domain was not added" />
        <Group align="flex-end">
          <TextInput
            label="Domain"
            description="The part after @ in the addresses you send from, for example example.com"
            placeholder="example.com"
            required
            value={domain}
            onChange={(event) => setDomain(event.currentTarget.value)}
            error={fieldError(add.error, 'domain')}
            w={360}
          />
          <Button type="submit" loading={add.isPending}>
            Add domain
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
