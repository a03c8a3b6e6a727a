import { Autocomplete, Group, NativeSelect, Stack } from '@mantine/core';

import { fieldError } from '../../../components/ErrorAlert';
import { useConditionFields } from '../queries';
import { CONDITION_OPERATORS } from '../steps';
import type { ConfigFieldsProps } from './types';
import { ValueField, ValueKindSelect } from './ValueFields';

/**
 * A CONDITION step: a field of the contact (`contact.email`), of its data (`data.plan`) or of
 * the event that started the run (`event.total`), compared with a value; runs go on by the
 * "yes" or the "no" branch.
 */
export function ConditionFields({ draft, onChange, error }: ConfigFieldsProps<'CONDITION'>) {
  const fields = useConditionFields();
  const suggestions = [...(fields.data?.contact ?? []), ...(fields.data?.data ?? [])];
  const takesValue = draft.operator !== 'exists' && draft.operator !== 'notExists';
  return (
    <Stack gap="sm">
      <Autocomplete
        label="Field"
        description="contact.<field>, data.<key>, or event.<key> for the data of the event that started the run."
        required
        data={suggestions}
        value={draft.field}
        onChange={(field) => onChange({ ...draft, field })}
        error={fieldError(error, 'config.field')}
      />
      <NativeSelect
        label="Comparison"
        data={CONDITION_OPERATORS.map((item) => ({ value: item.value, label: item.label }))}
        value={draft.operator}
        onChange={(event) => {
          const operator = CONDITION_OPERATORS.find(
            (item) => item.value === event.currentTarget.value,
          );
          if (operator !== undefined) onChange({ ...draft, operator: operator.value });
        }}
        error={fieldError(error, 'config.operator')}
      />
      {takesValue && (
        <Group gap="sm" align="flex-start" grow>
          <ValueKindSelect kind={draft.kind} onChange={(kind) => onChange({ ...draft, kind })} />
          <ValueField
            kind={draft.kind}
            value={draft.value}
            onChange={(value) => onChange({ ...draft, value })}
            error={fieldError(error, 'config.value')}
          />
        </Group>
      )}
    </Stack>
  );
}
