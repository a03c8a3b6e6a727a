import { Center, Loader, Stack } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';

import { api, unwrap } from '../../api/client';
import { useProjectId } from '../../api/session';
import { EmptyState } from '../../components/EmptyState';
import { ErrorAlert } from '../../components/ErrorAlert';
import { PageHeader } from '../../components/PageHeader';
import { AddDomainForm } from './AddDomainForm';
import { DomainCard } from './DomainCard';

/** `/p/:projectId/domains`: the project's sender domains and the DNS records that verify them. */
export default function DomainsPage() {
  const projectId = useProjectId();
  const domains = useQuery({
    queryKey: [projectId, 'domains'],
    queryFn: () =>
      unwrap(api.GET('/domains/project/{projectId}', { params: { path: { projectId } } })),
  });
  return (
    <>
      <PageHeader
        title="Domains"
        description="The domains you send email from. Add one, publish its DNS records, then check them."
      />
      <AddDomainForm />
      {domains.isPending && (
        <Center p="xl">
          <Loader aria-label="Loading the domains" />
        </Center>
      )}
      <ErrorAlert error={domains.error} title="The domains could not be loaded" />
      {domains.data?.length === 0 && (
        <EmptyState title="No domains yet">
          Add the domain of the addresses you send from. Stamp then gives you the DNS records to
          publish, so receivers trust your mail.
        </EmptyState>
      )}
      <Stack>
        {domains.data?.map((domain) => (
          <DomainCard key={domain.id} domain={domain} />
        ))}
      </Stack>
    </>
  );
}
