import { Autocomplete, Group, NativeSelect, NumberInput, Stack } from '@mantine/core';

import { fieldError } from '../../../components/ErrorAlert';
import { useEventNames } from '../queries';
import type { Unit } from '../steps';
import type { ConfigFieldsProps } from './types';

const UNITS: readonly Unit[] = ['minutes', 'hours', 'days'];

/** A WAIT_FOR_EVENT step: the event to wait for, and how long at most. */
export function WaitForEventFields({
  draft,
  onChange,
  error,
}: ConfigFieldsProps<'WAIT_FOR_EVENT'>) {
  const eventNames = useEventNames();
  return (
    <Stack gap="sm">
      <Autocomplete
        label="Event to wait for"
        required
        data={eventNames.data ?? []}
        value={draft.eventName}
        onChange={(eventName) => onChange({ ...draft, eventName })}
        error={fieldError(error, 'config.eventName')}
      />
      <Group gap="sm" align="flex-start" grow>
        <NumberInput
          label="Stop waiting after"
          description="Leave empty to wait without end."
          min={1}
          allowDecimal={false}
          value={draft.timeout}
          onChange={(value) =>
            onChange({ ...draft, timeout: typeof value === 'number' ? value : '' })
          }
          error={fieldError(error, 'config.timeout')}
        />
        <NativeSelect
          label="Unit"
          description="Of the timeout."
          data={[...UNITS]}
          value={draft.timeoutUnit}
          onChange={(event) => {
            const unit = UNITS.find((item) => item === event.currentTarget.value);
            if (unit !== undefined) onChange({ ...draft, timeoutUnit: unit });
          }}
        />
      </Group>
    </Stack>
  );
}
