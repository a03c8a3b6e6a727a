import '@xyflow/react/dist/style.css';
import './graph.css';

import { Badge, Card, Center, Grid, Group, Loader, Stack, Switch, Tabs, Text } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useCallback, useMemo, useState } from 'react';
import { useNavigate, useParams } from 'react-router';

import { api, type Schema, unwrap } from '../../api/client';
import { useProjectId } from '../../api/session';
import { ConfirmButton } from '../../components/ConfirmButton';
import { ErrorAlert } from '../../components/ErrorAlert';
import { PageHeader } from '../../components/PageHeader';
import { projectPath } from '../../shell/navigation';
import { AddStepForm } from './editor/AddStepForm';
import { StepPanel } from './editor/StepPanel';
import { TriggerPanel } from './editor/TriggerPanel';
import { ExecutionsPanel } from './executions/ExecutionsPanel';
import { layout } from './graph/layout';
import { WorkflowGraph } from './graph/WorkflowGraph';
import { useTemplateChoices, useWorkflow } from './queries';
import { draftOf, outletsOf, triggerSummary } from './steps';
import { useWorkflowMutations, withStepNames } from './useWorkflowMutations';

/**
 * `/p/:projectId/workflows/:workflowId`: the workflow's editor (its steps as a graph, the side
 * panel of the selected step, adding steps), enabling it, deleting it, and its runs.
 */
export default function WorkflowPage() {
  const { workflowId = '' } = useParams();
  const workflow = useWorkflow(workflowId);
  if (workflow.isPending) {
    return (
      <Center p="xl">
        <Loader aria-label="Loading the workflow" />
      </Center>
    );
  }
  if (workflow.isError) {
    return (
      <>
        <PageHeader title="Workflow" />
        <ErrorAlert error={workflow.error} title="The workflow could not be loaded" />
      </>
    );
  }
  return <Editor workflow={workflow.data} />;
}

function Editor({ workflow }: { workflow: Schema<'Workflow'> }) {
  const projectId = useProjectId();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const mutations = useWorkflowMutations(workflow.id);
  const templates = useTemplateChoices();
  const trigger = workflow.steps.find((step) => step.type === 'TRIGGER');
  const [selectedId, setSelectedId] = useState<string | undefined>(trigger?.id);
  const selected = workflow.steps.find((step) => step.id === selectedId) ?? trigger;
  const selectedDraft = selected === undefined ? undefined : draftOf(selected);
  const positions = useMemo(
    () => layout(workflow.steps, workflow.transitions),
    [workflow.steps, workflow.transitions],
  );
  const templateName = useCallback(
    (id: string) => templates.data?.find((template) => template.id === id)?.name,
    [templates.data],
  );
  const { connect, updateStep, disconnect } = mutations;

  const enable = useMutation({
    mutationFn: async (enabled: boolean) => {
      try {
        return await unwrap(
          api.PATCH('/workflows/{id}', {
            params: { path: { id: workflow.id } },
            body: { enabled },
          }),
        );
      } catch (error) {
        throw withStepNames(error, workflow.steps);
      }
    },
    onSuccess: async (updated) => {
      queryClient.setQueryData([projectId, 'workflows', workflow.id], updated);
      await queryClient.invalidateQueries({ queryKey: [projectId, 'workflows'] });
    },
  });
  const remove = useMutation({
    mutationFn: () =>
      unwrap(api.DELETE('/workflows/{id}', { params: { path: { id: workflow.id } } })),
    onSuccess: async () => {
      queryClient.removeQueries({ queryKey: [projectId, 'workflows', workflow.id] });
      // The list shows it gone at once, before it is read again.
      queryClient.setQueryData<Schema<'Workflow'>[]>([projectId, 'workflows'], (list) =>
        list?.filter((item) => item.id !== workflow.id),
      );
      await queryClient.invalidateQueries({ queryKey: [projectId, 'workflows'] });
      void navigate(projectPath(projectId, 'workflows'));
    },
  });

  const onConnect = useCallback(
    (fromStepId: string, toStepId: string, outletKey: string) => {
      const from = workflow.steps.find((step) => step.id === fromStepId);
      const outlet = outletsOf(from?.type ?? 'DELAY').find((item) => item.key === outletKey);
      if (outlet !== undefined) connect.mutate({ fromStepId, toStepId, outlet });
    },
    [workflow.steps, connect],
  );
  const graphError = connect.error ?? disconnect.error ?? updateStep.error;

  return (
    <>
      <PageHeader
        title={workflow.name}
        description={workflow.description ?? undefined}
        actions={
          <>
            <Switch
              label="Enabled"
              checked={workflow.enabled}
              disabled={enable.isPending}
              onChange={(event) => enable.mutate(event.currentTarget.checked)}
            />
            <ConfirmButton
              variant="light"
              color="red"
              title="Delete this workflow?"
              message={`"${workflow.name}" and its steps will be deleted. Runs that are still going must be cancelled first.`}
              confirmLabel="Delete workflow"
              loading={remove.isPending}
              onConfirm={() => remove.mutate()}
            >
              Delete
            </ConfirmButton>
          </>
        }
      />
      <Stack gap="md">
        <ErrorAlert error={enable.error} title="The workflow could not be switched" />
        <ErrorAlert error={remove.error} title="The workflow could not be deleted" />
        <Group gap="sm">
          <Badge variant="outline" color={workflow.enabled ? 'blue' : 'gray'}>
            {workflow.enabled ? 'Enabled' : 'Disabled'}
          </Badge>
          <Text size="sm">{triggerSummary(workflow)}</Text>
          {workflow.allowReentry && (
            <Text size="sm" c="dimmed">
              Contacts may go through it more than once.
            </Text>
          )}
        </Group>
        <Tabs defaultValue="editor" keepMounted={false}>
          <Tabs.List>
            <Tabs.Tab value="editor">Steps</Tabs.Tab>
            <Tabs.Tab value="runs">Runs</Tabs.Tab>
          </Tabs.List>
          <Tabs.Panel value="editor" pt="md">
            <Grid gap="md">
              <Grid.Col span={{ base: 12, lg: 7 }}>
                <Stack gap="md">
                  <Card withBorder p={0}>
                    <WorkflowGraph
                      workflow={workflow}
                      selectedId={selected?.id}
                      onSelect={setSelectedId}
                      onConnect={onConnect}
                      onMove={(stepId, position) => updateStep.mutate({ stepId, position })}
                      onDisconnect={(transitionId) => disconnect.mutate(transitionId)}
                      templateName={templateName}
                    />
                  </Card>
                  <Text size="sm" c="dimmed">
                    Drag from the dot under a step to another step to connect them; select a
                    connection and press Delete to remove it. Or use the panel of a step.
                  </Text>
                  <ErrorAlert error={graphError} title="The graph could not be changed" />
                  <Card withBorder>
                    <AddStepForm
                      workflow={workflow}
                      positions={positions}
                      mutations={mutations}
                      onAdded={setSelectedId}
                    />
                  </Card>
                </Stack>
              </Grid.Col>
              <Grid.Col span={{ base: 12, lg: 5 }}>
                <Card withBorder component="section" aria-label="Selected step">
                  {selected === undefined || selectedDraft === undefined ? (
                    <TriggerPanel
                      // A saved change of the settings starts the form again from them.
                      key={JSON.stringify([
                        workflow.name,
                        workflow.description,
                        workflow.triggerType,
                        workflow.eventName,
                        workflow.allowReentry,
                      ])}
                      workflow={workflow}
                      mutations={mutations}
                    />
                  ) : (
                    <StepPanel
                      // A saved change of the step starts the form again from it.
                      key={JSON.stringify([selected.id, selected.name, selected.config])}
                      workflow={workflow}
                      step={selected}
                      initial={selectedDraft}
                      mutations={mutations}
                      onDeleted={() => setSelectedId(trigger?.id)}
                    />
                  )}
                </Card>
              </Grid.Col>
            </Grid>
          </Tabs.Panel>
          <Tabs.Panel value="runs" pt="md">
            <ExecutionsPanel workflow={workflow} />
          </Tabs.Panel>
        </Tabs>
      </Stack>
    </>
  );
}
