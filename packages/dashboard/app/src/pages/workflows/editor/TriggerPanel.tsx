import {
  Autocomplete,
  Button,
  Checkbox,
  Divider,
  NativeSelect,
  Stack,
  Text,
  Textarea,
  TextInput,
  Title,
} from '@mantine/core';
import { useState } from 'react';

import type { Schema } from '../../../api/client';
import { ErrorAlert, fieldError } from '../../../components/ErrorAlert';
import { useEventNames } from '../queries';
import type { useWorkflowMutations } from '../useWorkflowMutations';
import { NextSteps } from './NextSteps';

type TriggerType = Schema<'Workflow'>['triggerType'];

const TRIGGERS: { value: TriggerType; label: string }[] = [
  { value: 'EVENT', label: 'When an event is tracked for a contact' },
  { value: 'MANUAL', label: 'Only when started by hand' },
];

/**
 * The side panel of the trigger: the workflow's name and description, what starts it (an event,
 * or by hand), whether a contact may go through it again, and its first step.
 */
export function TriggerPanel({
  workflow,
  mutations,
}: {
  workflow: Schema<'Workflow'>;
  mutations: ReturnType<typeof useWorkflowMutations>;
}) {
  const eventNames = useEventNames();
  const [name, setName] = useState(workflow.name);
  const [description, setDescription] = useState(workflow.description ?? '');
  const [triggerType, setTriggerType] = useState<TriggerType>(workflow.triggerType);
  const [eventName, setEventName] = useState(workflow.eventName);
  const [allowReentry, setAllowReentry] = useState(workflow.allowReentry);
  const { update } = mutations;
  const trigger = workflow.steps.find((step) => step.type === 'TRIGGER');
  const triggers =
    workflow.triggerType === 'SCHEDULE'
      ? [...TRIGGERS, { value: 'SCHEDULE' as const, label: 'On a schedule' }]
      : TRIGGERS;
  return (
    <Stack gap="md">
      <Title order={2} size="h4">
        Trigger and settings
      </Title>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          update.mutate({
            name: name.trim(),
            description: description.trim() === '' ? null : description.trim(),
            triggerType,
            eventName: eventName.trim(),
            allowReentry,
          });
        }}
      >
        <Stack gap="sm">
          <TextInput
            label="Workflow name"
            required
            maxLength={255}
            value={name}
            onChange={(event) => setName(event.currentTarget.value)}
            error={fieldError(update.error, 'name')}
          />
          <Textarea
            label="Description"
            autosize
            minRows={2}
            value={description}
            onChange={(event) => setDescription(event.currentTarget.value)}
            error={fieldError(update.error, 'description')}
          />
          <NativeSelect
            label="Starts"
            data={triggers}
            value={triggerType}
            onChange={(event) => {
              const next = triggers.find((item) => item.value === event.currentTarget.value);
              if (next !== undefined) setTriggerType(next.value);
            }}
          />
          <Autocomplete
            label="Event name"
            description={
              triggerType === 'EVENT'
                ? 'Each time this event is tracked for a contact, a run starts.'
                : 'Kept for when the workflow starts on an event again.'
            }
            required
            data={eventNames.data ?? []}
            value={eventName}
            onChange={setEventName}
            error={fieldError(update.error, 'eventName')}
          />
          <Checkbox
            label="Let a contact go through it more than once"
            checked={allowReentry}
            onChange={(event) => setAllowReentry(event.currentTarget.checked)}
          />
          <ErrorAlert error={update.error} title="The workflow could not be saved" />
          <Button type="submit" loading={update.isPending} style={{ alignSelf: 'flex-start' }}>
            Save settings
          </Button>
        </Stack>
      </form>
      <Divider />
      {trigger === undefined ? (
        <Text size="sm">This workflow has no trigger step.</Text>
      ) : (
        <NextSteps workflow={workflow} step={trigger} mutations={mutations} />
      )}
    </Stack>
  );
}
