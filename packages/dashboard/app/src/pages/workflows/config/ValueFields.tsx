import { NativeSelect, TextInput } from '@mantine/core';

import type { ValueKind } from '../steps';

const KINDS: readonly { value: ValueKind; label: string }[] = [
  { value: 'string', label: 'Text' },
  { value: 'number', label: 'Number' },
  { value: 'boolean', label: 'Yes or no' },
];

/** How a value is written (text, number, yes/no), as a select labelled `label`. */
export function ValueKindSelect({
  label = 'Value type',
  kind,
  onChange,
}: {
  label?: string;
  kind: ValueKind;
  onChange: (kind: ValueKind) => void;
}) {
  return (
    <NativeSelect
      label={label}
      data={KINDS.map((item) => ({ value: item.value, label: item.label }))}
      value={kind}
      onChange={(event) => {
        const next = KINDS.find((item) => item.value === event.currentTarget.value);
        if (next !== undefined) onChange(next.value);
      }}
    />
  );
}

/** A value written as `kind`: a text box, a number box, or a yes/no select. */
export function ValueField({
  label = 'Value',
  kind,
  value,
  onChange,
  error,
}: {
  label?: string;
  kind: ValueKind;
  value: string;
  onChange: (value: string) => void;
  error?: string | undefined;
}) {
  if (kind === 'boolean') {
    return (
      <NativeSelect
        label={label}
        data={[
          { value: 'true', label: 'Yes' },
          { value: 'false', label: 'No' },
        ]}
        value={value === 'false' ? 'false' : 'true'}
        onChange={(event) => onChange(event.currentTarget.value)}
        error={error}
      />
    );
  }
  return (
    <TextInput
      label={label}
      type={kind === 'number' ? 'number' : 'text'}
      inputMode={kind === 'number' ? 'decimal' : undefined}
      value={value}
      onChange={(event) => onChange(event.currentTarget.value)}
      error={error}
    />
  );
}
