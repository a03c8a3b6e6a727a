import { Group, NativeSelect, NumberInput, TextInput } from '@mantine/core';
import { useState } from 'react';

import type { Filter, ValueShape } from './language';
import { TIME_UNITS } from './language';

/** What a value is written as: text, a number or yes/no. */
type ValueKind = 'string' | 'number' | 'boolean';

const KIND_LABELS: Record<ValueKind, string> = {
  string: 'Text',
  number: 'Number',
  boolean: 'Yes or no',
};

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** `value` written as `kind` (undefined when it has no such form). */
function convert(value: Filter['value'], kind: ValueKind): Filter['value'] {
  if (value === undefined) return kind === 'boolean' ? true : undefined;
  switch (kind) {
    case 'string':
      return String(value);
    case 'number': {
      const number = typeof value === 'number' ? value : Number(value);
      return value !== '' && Number.isFinite(number) ? number : undefined;
    }
    case 'boolean':
      return value === true || value === 'true';
  }
}

/**
 * The value (and unit) of one filter, as its operator's value shape asks: text, yes/no, a date, a
 * number or text or yes/no, or an amount of minutes, hours or days. `suggested` is how values of
 * the field are mostly written (a data field's inferred type).
 */
export function ValueInput({
  shape,
  filter,
  onChange,
  suggested = 'string',
}: {
  shape: ValueShape;
  filter: Filter;
  onChange: (filter: Filter) => void;
  suggested?: ValueKind | 'date';
}) {
  const [chosen, setChosen] = useState<ValueKind | undefined>(undefined);
  const set = (value: Filter['value']) => {
    const next: Filter = { ...filter };
    if (value === undefined) delete next.value;
    else next.value = value;
    onChange(next);
  };
  switch (shape) {
    case 'none':
      return null;
    case 'text':
      return (
        <TextInput
          label="Value"
          value={typeof filter.value === 'string' ? filter.value : ''}
          onChange={(event) => set(event.currentTarget.value)}
        />
      );
    case 'boolean':
      return (
        <NativeSelect
          label="Value"
          data={[
            { value: 'true', label: 'Yes' },
            { value: 'false', label: 'No' },
          ]}
          value={filter.value === false ? 'false' : 'true'}
          onChange={(event) => set(event.currentTarget.value === 'true')}
        />
      );
    case 'date': {
      const text = typeof filter.value === 'string' ? filter.value : '';
      return (
        <TextInput
          label="Date"
          type={text === '' || DAY.test(text) ? 'date' : 'text'}
          description={text === '' || DAY.test(text) ? undefined : 'A timestamp with its zone'}
          value={text}
          onChange={(event) => set(event.currentTarget.value)}
        />
      );
    }
    case 'duration':
      return (
        <Group gap="xs" align="flex-end" wrap="nowrap">
          <NumberInput
            label="Amount"
            min={1}
            allowDecimal={false}
            allowNegative={false}
            w={100}
            value={typeof filter.value === 'number' ? filter.value : ''}
            onChange={(value) => set(typeof value === 'number' ? value : undefined)}
          />
          <NativeSelect
            label="Unit"
            data={TIME_UNITS.map((unit) => ({ value: unit.value, label: unit.label }))}
            value={filter.unit ?? 'days'}
            onChange={(event) => {
              const unit = TIME_UNITS.find((item) => item.value === event.currentTarget.value);
              if (unit !== undefined) onChange({ ...filter, unit: unit.value });
            }}
          />
        </Group>
      );
    case 'scalar':
    case 'ordered': {
      const kinds: ValueKind[] =
        shape === 'scalar' ? ['string', 'number', 'boolean'] : ['string', 'number'];
      const fallback: ValueKind =
        suggested === 'date' || !kinds.includes(suggested) ? 'string' : suggested;
      const current = filter.value;
      const kind: ValueKind =
        current === undefined
          ? (chosen ?? fallback)
          : typeof current === 'number'
            ? 'number'
            : typeof current === 'boolean'
              ? 'boolean'
              : (chosen ?? 'string');
      return (
        <Group gap="xs" align="flex-end" wrap="nowrap">
          <NativeSelect
            label="Value type"
            data={kinds.map((item) => ({ value: item, label: KIND_LABELS[item] }))}
            value={kind}
            onChange={(event) => {
              const next = kinds.find((item) => item === event.currentTarget.value);
              if (next === undefined) return;
              setChosen(next);
              set(convert(current, next));
            }}
          />
          {kind === 'number' ? (
            <NumberInput
              label="Value"
              w={140}
              value={typeof current === 'number' ? current : ''}
              onChange={(value) => set(typeof value === 'number' ? value : undefined)}
            />
          ) : kind === 'boolean' ? (
            <NativeSelect
              label="Value"
              data={[
                { value: 'true', label: 'Yes' },
                { value: 'false', label: 'No' },
              ]}
              value={current === false ? 'false' : 'true'}
              onChange={(event) => set(event.currentTarget.value === 'true')}
            />
          ) : (
            <TextInput
              label="Value"
              value={typeof current === 'string' ? current : ''}
              onChange={(event) => set(event.currentTarget.value)}
            />
          )}
        </Group>
      );
    }
  }
}
