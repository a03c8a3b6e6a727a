import { Anchor, Badge, Group, List, Loader, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';

import { api, unwrap } from '../../api/client';
import { useProjectId } from '../../api/session';
import { ErrorAlert } from '../../components/ErrorAlert';
import { projectPath } from '../../shell/navigation';

/** The usage of a template (`GET /templates/:id/usage`), cached under the template's key. */
export function useTemplateUsage(templateId: string) {
  const projectId = useProjectId();
  return useQuery({
    queryKey: [projectId, 'templates', templateId, 'usage'],
    queryFn: () =>
      unwrap(api.GET('/templates/{id}/usage', { params: { path: { id: templateId } } })),
  });
}

/** The campaigns and workflows that use a template, with links to them. */
export function TemplateUsage({ templateId }: { templateId: string }) {
  const projectId = useProjectId();
  const usage = useTemplateUsage(templateId);
  if (usage.isPending) return <Loader size="sm" aria-label="Loading where the template is used" />;
  if (usage.isError)
    return <ErrorAlert error={usage.error} title="The usage could not be loaded" />;
  const { campaigns, workflows } = usage.data;
  if (campaigns.length === 0 && workflows.length === 0) {
    return (
      <Text size="sm" c="dimmed">
        No campaign or workflow uses this template yet.
      </Text>
    );
  }
  return (
    <>
      {campaigns.length > 0 && (
        <>
          <Text size="sm" fw={600} mt="xs">
            Campaigns
          </Text>
          <List size="sm" aria-label="Campaigns using this template">
            {campaigns.map((campaign) => (
              <List.Item key={campaign.id}>
                <Group gap="xs">
                  <Anchor
                    component={Link}
                    size="sm"
                    to={projectPath(projectId, `campaigns/${campaign.id}`)}
                  >
                    {campaign.name}
                  </Anchor>
                  <Badge size="sm" variant="light" color="gray">
                    {campaign.status}
                  </Badge>
                </Group>
              </List.Item>
            ))}
          </List>
        </>
      )}
      {workflows.length > 0 && (
        <>
          <Text size="sm" fw={600} mt="xs">
            Workflows
          </Text>
          <List size="sm" aria-label="Workflows using this template">
            {workflows.map((workflow) => (
              <List.Item key={workflow.id}>
                <Anchor
                  component={Link}
                  size="sm"
                  to={projectPath(projectId, `workflows/${workflow.id}`)}
                >
                  {workflow.name}
                </Anchor>{' '}
                <Text span size="xs" c="dimmed">
                  ({workflow.steps.length === 1 ? '1 step' : `${workflow.steps.length} steps`})
                </Text>
              </List.Item>
            ))}
          </List>
        </>
      )}
    </>
  );
}
