import { Anchor, Autocomplete, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';

import { api, unwrap } from '../../api/client';
import { useProjectId } from '../../api/session';
import { projectPath } from '../../shell/navigation';

/** The project's verified sender domains (`GET /domains/project/:projectId`), by name. */
export function useVerifiedDomains() {
  const projectId = useProjectId();
  const domains = useQuery({
    queryKey: [projectId, 'domains'],
    queryFn: () =>
      unwrap(api.GET('/domains/project/{projectId}', { params: { path: { projectId } } })),
  });
  const verified = (domains.data ?? [])
    .filter((domain) => domain.verified)
    .map((domain) => domain.domain);
  return { verified, isPending: domains.isPending, error: domains.error };
}

/**
 * An email address on one of the project's verified domains: as the person types the part
 * before `@`, it offers that name on each verified domain. Says where to verify a domain when
 * there is none.
 */
export function SenderAddressInput({
  label,
  value,
  onChange,
  required = false,
  error,
}: {
  label: string;
  value: string;
  onChange: (value: string) => void;
  required?: boolean;
  error?: string | undefined;
}) {
  const projectId = useProjectId();
  const domains = useVerifiedDomains();
  const local = value.includes('@') ? value.slice(0, value.indexOf('@')) : value;
  const suggestions =
    local.trim() === '' ? [] : domains.verified.map((domain) => `${local.trim()}@${domain}`);
  const description =
    domains.isPending || domains.error !== null ? undefined : domains.verified.length === 0 ? (
      <Text span size="xs">
        You have no verified domain yet.{' '}
        <Anchor component={Link} to={projectPath(projectId, 'domains')} size="xs">
          Add and verify one
        </Anchor>{' '}
        to send email.
      </Text>
    ) : (
      `An address on a verified domain: ${domains.verified.join(', ')}`
    );
  return (
    <Autocomplete
      label={label}
      type="email"
      value={value}
      onChange={onChange}
      data={suggestions}
      required={required}
      description={description}
      error={error}
      autoComplete="off"
    />
  );
}
