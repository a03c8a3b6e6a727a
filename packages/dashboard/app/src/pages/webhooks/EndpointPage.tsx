import { Alert, Anchor, Button, Card, Center, Loader, Stack, Text, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate, useParams } from 'react-router';

import { api, type Schema, unwrap } from '../../api/client';
import type { paths } from '../../api/schema';
import { useProjectId } from '../../api/session';
import { ConfirmButton } from '../../components/ConfirmButton';
import { ErrorAlert } from '../../components/ErrorAlert';
import { PageHeader } from '../../components/PageHeader';
import { projectPath } from '../../shell/navigation';
import { DeliveryLog } from './DeliveryLog';
import { EnabledBadge } from './EnabledBadge';
import { EndpointForm, type EndpointValues } from './EndpointForm';
import { SigningSecret } from './SigningSecret';

type Endpoint = Schema<'WebhookEndpoint'>;

/** The changes of PATCH /webhook-endpoints/:id. */
type EndpointChange =
  paths['/webhook-endpoints/{id}']['patch']['requestBody']['content']['application/json'];

/** Changes an endpoint (`PATCH /webhook-endpoints/:id`). */
function patchEndpoint(id: string, change: EndpointChange): Promise<Endpoint> {
  return unwrap(api.PATCH('/webhook-endpoints/{id}', { params: { path: { id } }, body: change }));
}

/** An endpoint's settings, state, secret and removal. */
function EndpointDetails({ endpoint }: { endpoint: Endpoint }) {
  const projectId = useProjectId();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const listKey = [projectId, 'webhook-endpoints'];
  const saved = (changed: Endpoint) => {
    queryClient.setQueryData([...listKey, endpoint.id], changed);
    void queryClient.invalidateQueries({ queryKey: listKey, exact: true });
  };
  const toggle = useMutation({
    mutationFn: () => patchEndpoint(endpoint.id, { enabled: !endpoint.enabled }),
    onSuccess: saved,
  });
  const save = useMutation({
    mutationFn: (values: EndpointValues) =>
      patchEndpoint(endpoint.id, {
        url: values.url.trim(),
        eventTypes: values.eventTypes,
        description: values.description.trim(),
        enabled: values.enabled,
      }),
    onSuccess: saved,
  });
  const remove = useMutation({
    mutationFn: () =>
      unwrap(api.DELETE('/webhook-endpoints/{id}', { params: { path: { id: endpoint.id } } })),
    onSuccess: () => {
      queryClient.removeQueries({ queryKey: [...listKey, endpoint.id] });
      void queryClient.invalidateQueries({ queryKey: listKey, exact: true });
      void navigate(projectPath(projectId, 'webhooks'));
    },
  });
  return (
    <>
      <PageHeader
        title={endpoint.description ?? 'Webhook endpoint'}
        description={endpoint.url}
        actions={
          <>
            <EnabledBadge endpoint={endpoint} />
            <Button variant="default" loading={toggle.isPending} onClick={() => toggle.mutate()}>
              {endpoint.enabled ? 'Disable' : 'Enable'}
            </Button>
            <ConfirmButton
              color="red"
              variant="light"
              title="Delete this endpoint?"
              message="Stamp stops posting events to this URL, and its delivery log is deleted with it."
              confirmLabel="Delete endpoint"
              onConfirm={() => remove.mutate()}
              loading={remove.isPending}
            >
              Delete
            </ConfirmButton>
          </>
        }
      />
      <Stack>
        <Anchor component={Link} to={projectPath(projectId, 'webhooks')} size="sm">
          All endpoints
        </Anchor>
        {endpoint.disabledReason !== undefined && !endpoint.enabled && (
          <Alert color="red" variant="light" title="Stamp turned this endpoint off">
            {endpoint.disabledReason} Fix the URL or your server, then enable it again.
          </Alert>
        )}
        <ErrorAlert error={toggle.error} title="The endpoint was not changed" />
        <ErrorAlert error={remove.error} title="The endpoint was not deleted" />
        <Card withBorder>
          <Title order={2} size="h4" mb="sm">
            Settings
          </Title>
          <EndpointForm
            key={endpoint.updatedAt}
            initial={{
              url: endpoint.url,
              eventTypes: endpoint.eventTypes,
              description: endpoint.description ?? '',
              enabled: endpoint.enabled,
            }}
            submitLabel="Save changes"
            pending={save.isPending}
            error={save.error}
            onSubmit={(values) => save.mutate(values)}
          />
          {save.isSuccess && (
            <Text size="sm" role="status" mt="sm">
              Changes saved.
            </Text>
          )}
        </Card>
        <SigningSecret secret={endpoint.secret} />
        <DeliveryLog endpoint={endpoint} />
      </Stack>
    </>
  );
}

/** `/p/:projectId/webhooks/:endpointId`: one endpoint, its settings and its delivery log. */
export default function EndpointPage() {
  const projectId = useProjectId();
  const { endpointId = '' } = useParams();
  const endpoint = useQuery({
    queryKey: [projectId, 'webhook-endpoints', endpointId],
    queryFn: () =>
      unwrap(api.GET('/webhook-endpoints/{id}', { params: { path: { id: endpointId } } })),
  });
  if (endpoint.isPending) {
    return (
      <Center p="xl">
        <Loader aria-label="Loading the endpoint" />
      </Center>
    );
  }
  if (endpoint.isError) {
    return (
      <>
        <PageHeader title="Webhook endpoint" />
        <ErrorAlert error={endpoint.error} title="The endpoint could not be loaded" />
        <Anchor component={Link} to={projectPath(projectId, 'webhooks')} mt="md">
          All endpoints
        </Anchor>
      </>
    );
  }
  return <EndpointDetails endpoint={endpoint.data} />;
}
