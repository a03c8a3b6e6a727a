import { Button, Group, NativeSelect, Stack, Text, Title } from '@mantine/core';
import { useState } from 'react';

import type { Schema } from '../../../api/client';
import { ErrorAlert } from '../../../components/ErrorAlert';
import { outletOf, outletsOf, type Outlet, type Step } from '../steps';
import type { useWorkflowMutations } from '../useWorkflowMutations';

type Mutations = ReturnType<typeof useWorkflowMutations>;

/**
 * Where a step leads, without the mouse: for each way out of it (next step, yes/no, event/
 * timeout) the step it leads to with a button to disconnect it, or a list of steps to connect.
 */
export function NextSteps({
  workflow,
  step,
  mutations,
}: {
  workflow: Schema<'Workflow'>;
  step: Step;
  mutations: Mutations;
}) {
  const outlets = outletsOf(step.type);
  if (outlets.length === 0) {
    return (
      <Text size="sm" c="dimmed">
        An exit step ends the run: nothing comes after it.
      </Text>
    );
  }
  return (
    <Stack gap="sm">
      <Title order={3} size="h5">
        Where it leads
      </Title>
      {outlets.map((outlet) => (
        <OutletRow
          key={outlet.key}
          workflow={workflow}
          step={step}
          outlet={outlet}
          mutations={mutations}
        />
      ))}
      <ErrorAlert error={mutations.connect.error} title="The steps could not be connected" />
      <ErrorAlert error={mutations.disconnect.error} title="The steps could not be disconnected" />
    </Stack>
  );
}

function OutletRow({
  workflow,
  step,
  outlet,
  mutations,
}: {
  workflow: Schema<'Workflow'>;
  step: Step;
  outlet: Outlet;
  mutations: Mutations;
}) {
  const [target, setTarget] = useState('');
  const transition = workflow.transitions.find(
    (item) => item.fromStepId === step.id && outletOf(item) === outlet.key,
  );
  if (transition !== undefined) {
    const to = workflow.steps.find((item) => item.id === transition.toStepId);
    return (
      <Group gap="sm" justify="space-between" wrap="nowrap">
        <Text size="sm">
          {outlet.label}:{' '}
          <Text span fw={600} size="sm">
            {to?.name ?? 'a deleted step'}
          </Text>
        </Text>
        <Button
          size="compact-sm"
          variant="subtle"
          color="red"
          aria-label={`Disconnect ${outlet.label.toLowerCase()} (${to?.name ?? 'a deleted step'})`}
          loading={
            mutations.disconnect.isPending && mutations.disconnect.variables === transition.id
          }
          onClick={() => mutations.disconnect.mutate(transition.id)}
        >
          Disconnect
        </Button>
      </Group>
    );
  }
  const candidates = workflow.steps.filter(
    (item) => item.type !== 'TRIGGER' && item.id !== step.id,
  );
  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        if (target === '') return;
        mutations.connect.mutate(
          { fromStepId: step.id, toStepId: target, outlet },
          { onSuccess: () => setTarget('') },
        );
      }}
    >
      <Group gap="sm" align="flex-end" wrap="nowrap">
        <NativeSelect
          label={outlet.label}
          style={{ flex: 1 }}
          data={[
            {
              value: '',
              label: candidates.length === 0 ? 'Add a step first' : 'Choose a step',
              disabled: true,
            },
            ...candidates.map((item) => ({ value: item.id, label: item.name })),
          ]}
          value={target}
          onChange={(event) => setTarget(event.currentTarget.value)}
        />
        <Button
          type="submit"
          variant="light"
          disabled={target === ''}
          aria-label={`Connect ${outlet.label.toLowerCase()}`}
          loading={mutations.connect.isPending}
        >
          Connect
        </Button>
      </Group>
    </form>
  );
}
