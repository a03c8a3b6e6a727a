import { Alert, Button, Card, Group, Stack, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Link } from 'react-router';

import { api, unwrap } from '../../api/client';
import { useProjectId } from '../../api/session';
import { projectPath } from '../../shell/navigation';
import { KeyOnce } from '../projects/NewProjectPage';
import { EndpointForm, type EndpointValues } from './EndpointForm';

/** Creates a webhook endpoint (`POST /webhook-endpoints`), then shows its signing secret. */
export function NewEndpoint({ onClose }: { onClose: () => void }) {
  const projectId = useProjectId();
  const queryClient = useQueryClient();
  const create = useMutation({
    mutationFn: (values: EndpointValues) =>
      unwrap(
        api.POST('/webhook-endpoints', {
          body: {
            url: values.url.trim(),
            eventTypes: values.eventTypes,
            enabled: values.enabled,
            ...(values.description.trim() === '' ? {} : { description: values.description.trim() }),
          },
        }),
      ),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: [projectId, 'webhook-endpoints'] }),
  });
  return (
    <Card withBorder mb="lg" component="section" aria-labelledby="new-endpoint-title">
      <Title order={2} size="h4" mb="sm" id="new-endpoint-title">
        New endpoint
      </Title>
      {create.data === undefined ? (
        <EndpointForm
          initial={{ url: '', eventTypes: [], description: '', enabled: true }}
          submitLabel="Create endpoint"
          pending={create.isPending}
          error={create.error}
          onSubmit={(values) => create.mutate(values)}
          onCancel={onClose}
        />
      ) : (
        <Stack>
          <Alert color="yellow" variant="light" title="Copy the signing secret now">
            It proves that a request comes from Stamp: check the webhook-signature header with it
            (Standard Webhooks). It also stays available on the endpoint&apos;s page.
          </Alert>
          <KeyOnce label="Signing secret" value={create.data.secret} />
          <Group>
            <Button
              component={Link}
              to={projectPath(projectId, `webhooks/${encodeURIComponent(create.data.id)}`)}
            >
              Open the endpoint
            </Button>
            <Button variant="default" onClick={onClose}>
              Done
            </Button>
          </Group>
        </Stack>
      )}
    </Card>
  );
}
