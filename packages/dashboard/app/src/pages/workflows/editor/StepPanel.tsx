import {
  Badge,
  Button,
  Checkbox,
  Divider,
  Group,
  Stack,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useState } from 'react';

import type { Schema } from '../../../api/client';
import { ConfirmButton } from '../../../components/ConfirmButton';
import { ErrorAlert, fieldError } from '../../../components/ErrorAlert';
import { StepConfigFields } from '../config/StepConfigFields';
import { bodyOf, type Step, type StepDraft, STEP_TYPES } from '../steps';
import type { useWorkflowMutations } from '../useWorkflowMutations';
import { NextSteps } from './NextSteps';

/**
 * The side panel of a selected step (not the trigger): its name and config, where it leads, and
 * deleting it (optionally reconnecting the steps around it).
 */
export function StepPanel({
  workflow,
  step,
  initial,
  mutations,
  onDeleted,
}: {
  workflow: Schema<'Workflow'>;
  step: Step;
  /** The draft of the step's saved config. */
  initial: StepDraft;
  mutations: ReturnType<typeof useWorkflowMutations>;
  onDeleted: () => void;
}) {
  const [name, setName] = useState(step.name);
  const [draft, setDraft] = useState(initial);
  const [splice, setSplice] = useState(true);
  const { updateStep, deleteStep } = mutations;
  const saveError = updateStep.variables?.stepId === step.id ? updateStep.error : null;
  return (
    <Stack gap="md">
      <Group justify="space-between" wrap="nowrap">
        <Title order={2} size="h4">
          {step.name}
        </Title>
        <Badge variant="outline" color="gray">
          {STEP_TYPES[step.type].label}
        </Badge>
      </Group>
      <Text size="sm" c="dimmed">
        {STEP_TYPES[step.type].description}
      </Text>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          updateStep.mutate({ stepId: step.id, name: name.trim(), config: bodyOf(draft).config });
        }}
      >
        <Stack gap="sm">
          <TextInput
            label="Step name"
            required
            maxLength={255}
            value={name}
            onChange={(event) => setName(event.currentTarget.value)}
            error={fieldError(saveError, 'name')}
          />
          <StepConfigFields draft={draft} onChange={setDraft} error={saveError} />
          <ErrorAlert error={saveError} title="The step could not be saved" />
          <Group>
            <Button type="submit" loading={updateStep.isPending}>
              Save step
            </Button>
          </Group>
        </Stack>
      </form>
      <Divider />
      <NextSteps workflow={workflow} step={step} mutations={mutations} />
      <Divider />
      <Stack gap="xs">
        <Checkbox
          label="Reconnect the steps before and after it"
          checked={splice}
          onChange={(event) => setSplice(event.currentTarget.checked)}
        />
        <ConfirmButton
          variant="light"
          color="red"
          title={`Delete the step "${step.name}"?`}
          message={
            splice
              ? 'The step is removed and the step before it is connected to the step after it.'
              : 'The step and its connections are removed.'
          }
          confirmLabel="Delete step"
          loading={deleteStep.isPending}
          onConfirm={() => deleteStep.mutate({ stepId: step.id, splice }, { onSuccess: onDeleted })}
          style={{ alignSelf: 'flex-start' }}
        >
          Delete step
        </ConfirmButton>
        <ErrorAlert error={deleteStep.error} title="The step could not be deleted" />
      </Stack>
    </Stack>
  );
}
