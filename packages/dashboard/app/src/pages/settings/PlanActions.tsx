import { Button, Card, Group, Stack, Text, Title } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';

import { api, unwrap } from '../../api/client';
import { useProjectId } from '../../api/session';
import { ErrorAlert } from '../../components/ErrorAlert';
import type { Guard } from './RoleNote';

/** Subscribing (checkout) and the billing portal of the payment provider. */
export function PlanActions({ manage }: { manage: Guard }) {
  const projectId = useProjectId();
  const here = window.location.href;
  const checkout = useMutation({
    mutationFn: () =>
      unwrap(
        api.POST('/users/@me/projects/{id}/checkout', {
          params: { path: { id: projectId } },
          body: { successUrl: here, cancelUrl: here },
        }),
      ),
    onSuccess: (session) => {
      if (session.url !== null) window.location.assign(session.url);
    },
  });
  const portal = useMutation({
    mutationFn: () =>
      unwrap(
        api.POST('/users/@me/projects/{id}/billing-portal', {
          params: { path: { id: projectId } },
          body: { returnUrl: here },
        }),
      ),
    onSuccess: (session) => window.location.assign(session.url),
  });
  return (
    <Card withBorder component="section" aria-labelledby="plan-title">
      <Title order={2} size="h4" mb="xs" id="plan-title">
        Plan and payment
      </Title>
      <Text size="sm" c="dimmed" mb="sm">
        Subscribe to a plan, or change the payment method and see past payments at the payment
        provider.
      </Text>
      <Stack gap="xs">
        <Group>
          <Button
            onClick={() => checkout.mutate()}
            loading={checkout.isPending}
            disabled={!manage.allowed}
            aria-describedby={manage.describedBy}
          >
            Subscribe
          </Button>
          <Button
            variant="default"
            onClick={() => portal.mutate()}
            loading={portal.isPending}
            disabled={!manage.allowed}
            aria-describedby={manage.describedBy}
          >
            Open the billing portal
          </Button>
        </Group>
        {manage.note}
        <ErrorAlert error={checkout.error} title="The checkout could not start" />
        <ErrorAlert error={portal.error} title="The billing portal could not open" />
        {checkout.isSuccess && checkout.data.url === null && (
          <Text size="sm" role="status">
            The payment provider gave no checkout page; try again in a moment.
          </Text>
        )}
      </Stack>
    </Card>
  );
}
