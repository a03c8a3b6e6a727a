import { Alert, Button, Code, CopyButton, Stack, Text, TextInput } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';

import { api, unwrap } from '../../api/client';
import { ErrorAlert, fieldError } from '../../components/ErrorAlert';
import { projectPath } from '../../shell/navigation';
import { RequireSession } from '../../shell/RequireSession';
import { AuthLayout } from '../auth/AuthLayout';

/** Shows a key once, with a copy button. */
export function KeyOnce({ label, value }: { label: string; value: string }) {
  return (
    <Stack gap={4}>
      <Text size="sm" fw={600}>
        {label}
      </Text>
      <Code block>{value}</Code>
      <CopyButton value={value}>
        {({ copied, copy }) => (
          <Button
            size="xs"
            variant="light"
            onClick={copy}
            aria-label={`Copy the ${label.toLowerCase()}`}
          >
            {copied ? 'Copied' : 'Copy'}
          </Button>
        )}
      </CopyButton>
    </Stack>
  );
}

function NewProject() {
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const create = useMutation({
    mutationFn: () => unwrap(api.POST('/users/@me/projects', { body: { name } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['projects'] }),
  });
  if (create.data !== undefined) {
    return (
      <Stack>
        <Alert color="yellow" variant="light">
          These keys are shown this once. Keep the secret key on your servers only.
        </Alert>
        <KeyOnce label="Secret key" value={create.data.secretKey} />
        <KeyOnce label="Public key" value={create.data.publicKey} />
        <Button component={Link} to={projectPath(create.data.id)}>
          Open {create.data.name}
        </Button>
      </Stack>
    );
  }
  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        create.mutate();
      }}
    >
      <Stack>
        <ErrorAlert error={create.error} />
        <TextInput
          label="Project name"
          required
          maxLength={100}
          value={name}
          onChange={(event) => setName(event.currentTarget.value)}
          error={fieldError(create.error, 'name')}
        />
        <Button type="submit" loading={create.isPending}>
          Create project
        </Button>
      </Stack>
    </form>
  );
}

/** `/projects/new`: creates a project owned by the signed-in user and shows its keys once. */
export default function NewProjectPage() {
  return (
    <RequireSession>
      <AuthLayout title="Create a project">
        <NewProject />
      </AuthLayout>
    </RequireSession>
  );
}
