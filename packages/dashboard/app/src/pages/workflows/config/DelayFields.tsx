import { Group, NativeSelect, NumberInput } from '@mantine/core';

import { fieldError } from '../../../components/ErrorAlert';
import type { Unit } from '../steps';
import type { ConfigFieldsProps } from './types';

const UNITS: readonly Unit[] = ['minutes', 'hours', 'days'];

/** A DELAY step: how long to wait (at most 365 days). */
export function DelayFields({ draft, onChange, error }: ConfigFieldsProps<'DELAY'>) {
  return (
    <Group gap="sm" align="flex-start" grow>
      <NumberInput
        label="Wait for"
        required
        min={1}
        value={draft.amount}
        onChange={(value) => onChange({ ...draft, amount: typeof value === 'number' ? value : '' })}
        error={fieldError(error, 'config.amount')}
      />
      <NativeSelect
        label="Unit"
        data={[...UNITS]}
        value={draft.unit}
        onChange={(event) => {
          const unit = UNITS.find((item) => item === event.currentTarget.value);
          if (unit !== undefined) onChange({ ...draft, unit });
        }}
        error={fieldError(error, 'config.unit')}
      />
    </Group>
  );
}
