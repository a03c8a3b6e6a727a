import { Button, Group, NativeSelect, Stack, Text, TextInput } from '@mantine/core';

import { fieldError } from '../../components/ErrorAlert';
import { type FieldRow, type FieldType, newRow, type RowProblems } from './dataFields';

const TYPES: { value: FieldType; label: string }[] = [
  { value: 'text', label: 'Text' },
  { value: 'number', label: 'Number' },
  { value: 'boolean', label: 'Yes or no' },
];

/** Whether `value` is a field type. */
function isFieldType(value: string): value is FieldType {
  return TYPES.some((type) => type.value === value);
}

/**
 * Custom data fields as rows of name, type and value, with a button to add one and one to remove
 * each. Problems found before sending (`problems`) and the API's field errors (`data.<name>` of
 * `error`) show on their inputs.
 */
export function DataFieldsEditor({
  rows,
  onChange,
  problems,
  error,
}: {
  rows: FieldRow[];
  onChange: (rows: FieldRow[]) => void;
  problems: RowProblems;
  error: unknown;
}) {
  const update = (id: string, change: Partial<FieldRow>) =>
    onChange(rows.map((row) => (row.id === id ? { ...row, ...change } : row)));
  return (
    <Stack gap="xs">
      {rows.length === 0 && (
        <Text size="sm" c="dimmed">
          No custom fields. Add one for anything you want to use in emails and segments, such as a
          plan or a first name.
        </Text>
      )}
      {rows.map((row, index) => {
        const shownName = row.name.trim() === '' ? `field ${index + 1}` : row.name.trim();
        const apiError =
          row.name.trim() === '' ? undefined : fieldError(error, `data.${row.name.trim()}`);
        return (
          <Group key={row.id} align="flex-start" gap="xs" wrap="nowrap">
            <TextInput
              aria-label={`Name of field ${index + 1}`}
              placeholder="Name"
              value={row.name}
              maxLength={255}
              onChange={(change) => update(row.id, { name: change.currentTarget.value })}
              error={problems[row.id]?.name}
              style={{ flex: 2 }}
            />
            <NativeSelect
              aria-label={`Type of ${shownName}`}
              data={TYPES}
              value={row.type}
              onChange={(change) => {
                const type = change.currentTarget.value;
                if (!isFieldType(type)) return;
                update(row.id, {
                  type,
                  value: type === 'boolean' ? (row.value === 'true' ? 'true' : 'false') : row.value,
                });
              }}
              style={{ flex: 1 }}
            />
            {row.type === 'boolean' ? (
              <NativeSelect
                aria-label={`Value of ${shownName}`}
                data={[
                  { value: 'true', label: 'Yes (true)' },
                  { value: 'false', label: 'No (false)' },
                ]}
                value={row.value}
                onChange={(change) => update(row.id, { value: change.currentTarget.value })}
                error={apiError}
                style={{ flex: 3 }}
              />
            ) : (
              <TextInput
                aria-label={`Value of ${shownName}`}
                placeholder="Value"
                inputMode={row.type === 'number' ? 'decimal' : undefined}
                value={row.value}
                onChange={(change) => update(row.id, { value: change.currentTarget.value })}
                error={problems[row.id]?.value ?? apiError}
                style={{ flex: 3 }}
              />
            )}
            <Button
              variant="subtle"
              color="red"
              aria-label={`Remove ${shownName}`}
              onClick={() => onChange(rows.filter((other) => other.id !== row.id))}
            >
              Remove
            </Button>
          </Group>
        );
      })}
      <Group>
        <Button variant="default" size="xs" onClick={() => onChange([...rows, newRow()])}>
          Add a field
        </Button>
      </Group>
    </Stack>
  );
}
