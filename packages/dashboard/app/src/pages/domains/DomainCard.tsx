import { Button, Card, Group, Stack, Text, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';

import { api, type Schema, unwrap } from '../../api/client';
import { useProjectId } from '../../api/session';
import { ConfirmButton } from '../../components/ConfirmButton';
import { ErrorAlert } from '../../components/ErrorAlert';
import { DnsRecordsTable } from './DnsRecordsTable';
import { StatusBadge } from './StatusBadge';

type Domain = Schema<'Domain'>;

/** The result of a check, in words. */
function checkSummary(domain: Domain): string {
  const found = domain.records.filter((record) => record.status === 'VERIFIED').length;
  const of = `${found} of ${domain.records.length} records found`;
  return domain.verified
    ? `Checked just now: ${of}. The domain is verified and ready to send from.`
    : `Checked just now: ${of}. The DKIM record is needed to verify the domain; DNS changes can take a while to show.`;
}

/** A sender domain: its status, the DNS records to publish, "Check now" and removal. */
export function DomainCard({ domain }: { domain: Domain }) {
  const projectId = useProjectId();
  const queryClient = useQueryClient();
  const key = [projectId, 'domains'];
  const check = useMutation({
    mutationFn: () =>
      unwrap(api.GET('/domains/{id}/verify', { params: { path: { id: domain.id } } })),
    onSuccess: (checked) => {
      queryClient.setQueryData<Domain[]>(key, (list) =>
        list?.map((item) => (item.id === checked.id ? checked : item)),
      );
      void queryClient.invalidateQueries({ queryKey: [projectId, 'setup-state'] });
    },
  });
  const remove = useMutation({
    mutationFn: () => unwrap(api.DELETE('/domains/{id}', { params: { path: { id: domain.id } } })),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: key });
      void queryClient.invalidateQueries({ queryKey: [projectId, 'setup-state'] });
    },
  });
  return (
    <Card withBorder component="section" aria-label={domain.domain}>
      <Group justify="space-between" mb="sm">
        <Group gap="sm">
          <Title order={2} size="h4">
            {domain.domain}
          </Title>
          <StatusBadge status={domain.status} />
        </Group>
        <Group gap="sm">
          <Button
            variant="light"
            onClick={() => check.mutate()}
            loading={check.isPending}
            aria-label={`Check now the DNS records of ${domain.domain}`}
          >
            Check now
          </Button>
          <ConfirmButton
            variant="subtle"
            color="red"
            title={`Remove ${domain.domain}?`}
            message="You will no longer be able to send from this domain. Its DNS records can be removed afterwards."
            confirmLabel="Remove domain"
            onConfirm={() => remove.mutate()}
            loading={remove.isPending}
            aria-label={`Remove ${domain.domain}`}
          >
            Remove
          </ConfirmButton>
        </Group>
      </Group>
      <Stack gap="sm">
        <Text size="sm" c="dimmed">
          {domain.verified
            ? `Verified${domain.verifiedAt === undefined ? '' : ` on ${new Date(domain.verifiedAt).toLocaleString()}`}. You can send from any address at this domain.`
            : 'Publish these records at your DNS provider, then check them. Stamp also checks every 5 minutes while the domain is pending.'}
        </Text>
        <DnsRecordsTable domain={domain} />
        {check.isSuccess && (
          <Text size="sm" role="status">
            {checkSummary(check.data)}
          </Text>
        )}
        <ErrorAlert error={check.error} title="The check did not work" />
        <ErrorAlert error={remove.error} title="The domain was not removed" />
      </Stack>
    </Card>
  );
}
