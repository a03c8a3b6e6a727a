import { Button, NativeSelect, Stack, Text, TextInput, Title } from '@mantine/core';
import { useState } from 'react';

import type { Schema } from '../../../api/client';
import { ErrorAlert, fieldError } from '../../../components/ErrorAlert';
import { StepConfigFields } from '../config/StepConfigFields';
import { type Point, placeForNewStep } from '../graph/layout';
import {
  ADDABLE_TYPES,
  type AddableType,
  bodyOf,
  emptyDraft,
  outletOf,
  outletsOf,
  type Outlet,
  STEP_TYPES,
} from '../steps';
import type { useWorkflowMutations } from '../useWorkflowMutations';

/** The ways out of the workflow's steps that lead nowhere yet, as choices of "Comes after". */
function freeOutlets(workflow: Schema<'Workflow'>) {
  return workflow.steps.flatMap((step) =>
    outletsOf(step.type)
      .filter(
        (outlet) =>
          !workflow.transitions.some(
            (transition) =>
              transition.fromStepId === step.id && outletOf(transition) === outlet.key,
          ),
      )
      .map((outlet) => ({
        value: `${step.id}:${outlet.key}`,
        label: outlet.key === 'next' ? step.name : `${step.name}: ${outlet.label.toLowerCase()}`,
        stepId: step.id,
        outlet,
      })),
  );
}

/**
 * Adds a step of any of the seven types with its config, optionally connected after a step that
 * leads nowhere yet; the new step is placed on the canvas below it.
 */
export function AddStepForm({
  workflow,
  positions,
  mutations,
  onAdded,
}: {
  workflow: Schema<'Workflow'>;
  positions: ReadonlyMap<string, Point>;
  mutations: ReturnType<typeof useWorkflowMutations>;
  onAdded: (stepId: string) => void;
}) {
  const [type, setType] = useState<AddableType>('SEND_EMAIL');
  const [name, setName] = useState('');
  const [draft, setDraft] = useState(() => emptyDraft('SEND_EMAIL'));
  const [after, setAfter] = useState('');
  const { addStep } = mutations;
  const outlets = freeOutlets(workflow);
  const chosen: { stepId: string; outlet: Outlet } | undefined = outlets.find(
    (item) => item.value === after,
  );
  return (
    <form
      aria-label="Add a step"
      onSubmit={(event) => {
        event.preventDefault();
        const body = {
          ...bodyOf(draft),
          ...(name.trim() === '' ? {} : { name: name.trim() }),
          position: placeForNewStep(positions, chosen?.stepId),
        };
        addStep.mutate(
          {
            body,
            after:
              chosen === undefined ? undefined : { stepId: chosen.stepId, outlet: chosen.outlet },
          },
          {
            onSuccess: (step) => {
              setName('');
              setDraft(emptyDraft(type));
              setAfter('');
              onAdded(step.id);
            },
          },
        );
      }}
    >
      <Stack gap="sm">
        <Title order={2} size="h4">
          Add a step
        </Title>
        <NativeSelect
          label="Step type"
          data={ADDABLE_TYPES.map((item) => ({ value: item, label: STEP_TYPES[item].label }))}
          value={type}
          onChange={(event) => {
            const next = ADDABLE_TYPES.find((item) => item === event.currentTarget.value);
            if (next === undefined) return;
            setType(next);
            setDraft(emptyDraft(next));
            addStep.reset();
          }}
        />
        <Text size="sm" c="dimmed">
          {STEP_TYPES[type].description}
        </Text>
        <TextInput
          label="Step name"
          description="Optional: how the step is shown on the canvas."
          placeholder={STEP_TYPES[type].label}
          maxLength={255}
          value={name}
          onChange={(event) => setName(event.currentTarget.value)}
          error={fieldError(addStep.error, 'name')}
        />
        <StepConfigFields draft={draft} onChange={setDraft} error={addStep.error} />
        <NativeSelect
          label="Comes after"
          data={[
            { value: '', label: 'No step yet (connect it later)' },
            ...outlets.map((item) => ({ value: item.value, label: item.label })),
          ]}
          value={after}
          onChange={(event) => setAfter(event.currentTarget.value)}
        />
        <ErrorAlert error={addStep.error} title="The step could not be added" />
        <Button type="submit" loading={addStep.isPending} style={{ alignSelf: 'flex-start' }}>
          Add step
        </Button>
      </Stack>
    </form>
  );
}
