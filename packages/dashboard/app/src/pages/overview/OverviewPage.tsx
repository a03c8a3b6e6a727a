import {
  Anchor,
  Badge,
  Card,
  Group,
  List,
  Loader,
  SimpleGrid,
  Text,
  ThemeIcon,
} from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';

import { api, unwrap } from '../../api/client';
import { useProjectId, useProjects } from '../../api/session';
import { ErrorAlert } from '../../components/ErrorAlert';
import { PageHeader } from '../../components/PageHeader';
import { projectPath } from '../../shell/navigation';

/** The onboarding steps of a project (`GET /projects/:id/setup-state`), in words, with where to do each. */
const STEPS = {
  DOMAIN_ADDED: { label: 'Add a sender domain', page: 'domains' },
  DOMAIN_VERIFIED: { label: 'Verify the domain with its DNS records', page: 'domains' },
  EMAIL_SENT: { label: 'Send your first email', page: 'templates' },
  EVENT_TRACKED: { label: 'Track your first event', page: 'activity' },
} as const;

/** `/p/:projectId`: the onboarding checklist and the project's keys (their last characters). */
export default function OverviewPage() {
  const projectId = useProjectId();
  const project = useProjects().data?.find((item) => item.id === projectId);
  const setup = useQuery({
    queryKey: [projectId, 'setup-state'],
    queryFn: () =>
      unwrap(api.GET('/projects/{id}/setup-state', { params: { path: { id: projectId } } })),
  });
  return (
    <>
      <PageHeader
        title={project?.name ?? 'Overview'}
        description="Where this project stands and what to do next."
      />
      <SimpleGrid cols={{ base: 1, md: 2 }}>
        <Card withBorder>
          <Group justify="space-between" mb="sm">
            <Text fw={600} component="h2">
              Getting started
            </Text>
            {setup.data?.completed === true && <Badge color="green">Done</Badge>}
          </Group>
          {setup.isPending && <Loader size="sm" aria-label="Loading the checklist" />}
          <ErrorAlert error={setup.error} />
          <List spacing="sm" aria-label="Onboarding checklist">
            {(setup.data?.steps ?? []).map((step) => (
              <List.Item
                key={step.step}
                icon={
                  <ThemeIcon size={20} radius="xl" color={step.done ? 'green' : 'gray'} aria-hidden>
                    {step.done ? '✓' : '·'}
                  </ThemeIcon>
                }
              >
                {step.done ? (
                  <Text size="sm">
                    {STEPS[step.step].label}{' '}
                    <Text span c="dimmed" size="xs">
                      (done)
                    </Text>
                  </Text>
                ) : (
                  <Anchor
                    component={Link}
                    size="sm"
                    to={projectPath(projectId, STEPS[step.step].page)}
                  >
                    {STEPS[step.step].label}
                  </Anchor>
                )}
              </List.Item>
            ))}
          </List>
        </Card>
        <Card withBorder>
          <Text fw={600} component="h2" mb="sm">
            API keys
          </Text>
          <Text size="sm">
            Secret key:{' '}
            <Text span ff="monospace">
              {project?.secretKeyHint ?? '—'}
            </Text>
          </Text>
          <Text size="sm">
            Public key:{' '}
            <Text span ff="monospace">
              {project?.publicKeyHint ?? '—'}
            </Text>
          </Text>
          <Anchor component={Link} size="sm" to={projectPath(projectId, 'settings')}>
            Manage keys and members
          </Anchor>
        </Card>
      </SimpleGrid>
    </>
  );
}
