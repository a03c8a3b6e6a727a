import { Anchor, Badge, Button, Center, Loader, Table, Text } from '@mantine/core';
import { Link } from 'react-router';

import { useProjectId } from '../../api/session';
import { EmptyState } from '../../components/EmptyState';
import { ErrorAlert } from '../../components/ErrorAlert';
import { PageHeader } from '../../components/PageHeader';
import { projectPath } from '../../shell/navigation';
import { useWorkflows } from './queries';
import { triggerSummary } from './steps';

/** `/p/:projectId/workflows`: every workflow, what starts it, and whether it is on. */
export default function WorkflowsPage() {
  const projectId = useProjectId();
  const workflows = useWorkflows();
  const newButton = (
    <Button component={Link} to={projectPath(projectId, 'workflows/new')}>
      New workflow
    </Button>
  );
  return (
    <>
      <PageHeader
        title="Workflows"
        description="Automatic emails and actions that run when contacts do something."
        actions={newButton}
      />
      <ErrorAlert error={workflows.error} title="The workflows could not be loaded" />
      {workflows.isPending && (
        <Center p="xl">
          <Loader aria-label="Loading the workflows" />
        </Center>
      )}
      {workflows.data?.length === 0 && (
        <EmptyState title="No workflows yet" action={newButton}>
          Create a workflow to welcome new sign-ups, follow up after a purchase, or call your own
          systems when an event is tracked.
        </EmptyState>
      )}
      {workflows.data !== undefined && workflows.data.length > 0 && (
        <Table.ScrollContainer minWidth={640}>
          <Table striped highlightOnHover>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Name</Table.Th>
                <Table.Th>Starts</Table.Th>
                <Table.Th ta="right">Steps</Table.Th>
                <Table.Th>Status</Table.Th>
                <Table.Th>Last changed</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {workflows.data.map((workflow) => (
                <Table.Tr key={workflow.id}>
                  <Table.Td>
                    <Anchor
                      component={Link}
                      to={projectPath(projectId, `workflows/${workflow.id}`)}
                    >
                      {workflow.name}
                    </Anchor>
                    {workflow.description !== null && workflow.description !== '' && (
                      <Text size="xs" c="dimmed" lineClamp={1}>
                        {workflow.description}
                      </Text>
                    )}
                  </Table.Td>
                  <Table.Td>{triggerSummary(workflow)}</Table.Td>
                  <Table.Td ta="right">
                    {workflow.steps.filter((step) => step.type !== 'TRIGGER').length}
                  </Table.Td>
                  <Table.Td>
                    <Badge variant="outline" color={workflow.enabled ? 'blue' : 'gray'}>
                      {workflow.enabled ? 'Enabled' : 'Disabled'}
                    </Badge>
                  </Table.Td>
                  <Table.Td>{new Date(workflow.updatedAt).toLocaleString()}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
    </>
  );
}
