import { Alert, Card, Code, Group, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';

import { api, unwrap } from '../../api/client';
import { useProjectId } from '../../api/session';
import { ConfirmButton } from '../../components/ConfirmButton';
import { ErrorAlert } from '../../components/ErrorAlert';
import { KeyOnce } from '../projects/NewProjectPage';
import { useGuard } from './RoleNote';
import { useProject } from './useProject';

/** `settings/keys`: the ends of the project's API keys, and new keys on demand (shown once). */
export default function KeysTab() {
  const projectId = useProjectId();
  const project = useProject();
  const queryClient = useQueryClient();
  const guard = useGuard('keys.manage', 'regenerate the keys');
  const regenerate = useMutation({
    mutationFn: () =>
      unwrap(
        api.POST('/users/@me/projects/{id}/regenerate-keys', {
          params: { path: { id: projectId } },
        }),
      ),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['projects'] }),
  });
  return (
    <Stack>
      <Card withBorder component="section" aria-labelledby="keys-title">
        <Title order={2} size="h4" mb="xs" id="keys-title">
          API keys
        </Title>
        <Text size="sm" c="dimmed" mb="sm">
          The secret key (sk_) authenticates your servers and can do everything; keep it private.
          The public key (pk_) can only track events, so it may appear in a web page. Only their
          last characters are shown here.
        </Text>
        <SimpleGrid cols={{ base: 1, sm: 2 }} mb="md">
          <div>
            <Text size="sm" fw={600}>
              Secret key
            </Text>
            <Code>{project?.secretKeyHint ?? '—'}</Code>
          </div>
          <div>
            <Text size="sm" fw={600}>
              Public key
            </Text>
            <Code>{project?.publicKeyHint ?? '—'}</Code>
          </div>
        </SimpleGrid>
        <Group>
          <ConfirmButton
            color="red"
            variant="light"
            title="Regenerate the API keys?"
            message="Both keys are replaced at once: the current secret and public keys stop working immediately. Put the new keys in your servers and pages right after."
            confirmLabel="Yes, replace the keys"
            onConfirm={() => regenerate.mutate()}
            loading={regenerate.isPending}
            disabled={!guard.allowed}
            aria-describedby={guard.describedBy}
          >
            Regenerate keys
          </ConfirmButton>
        </Group>
        {guard.note}
        <ErrorAlert error={regenerate.error} title="The keys were not replaced" />
      </Card>
      {regenerate.data !== undefined && (
        <Card withBorder component="section" aria-labelledby="new-keys-title">
          <Title order={2} size="h4" mb="sm" id="new-keys-title">
            Your new keys
          </Title>
          <Stack>
            <Alert color="yellow" variant="light">
              These keys are shown this once. The old ones no longer work.
            </Alert>
            <KeyOnce label="Secret key" value={regenerate.data.secretKey} />
            <KeyOnce label="Public key" value={regenerate.data.publicKey} />
          </Stack>
        </Card>
      )}
    </Stack>
  );
}
