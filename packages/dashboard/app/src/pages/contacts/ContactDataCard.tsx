import { Button, Card, Group, Table, Text } from '@mantine/core';
import { type SubmitEvent, useState } from 'react';

import type { Schema } from '../../api/client';
import { ErrorAlert } from '../../components/ErrorAlert';
import {
  dataFromRows,
  dataPatch,
  type FieldRow,
  type RowProblems,
  rowsFromData,
} from './dataFields';
import { DataFieldsEditor } from './DataFieldsEditor';
import { useUpdateContact } from './useContact';

/** A data value as shown: yes/no for booleans, numbers in the reader's format. */
function shown(value: string | number | boolean): string {
  if (typeof value === 'boolean') return value ? 'Yes' : 'No';
  if (typeof value === 'number') return value.toLocaleString();
  return value;
}

/**
 * The custom data of a contact: a table of its fields, and a form to change, add and remove them
 * (`PATCH /contacts/:id` with the changed fields, removed ones as null).
 */
export function ContactDataCard({ contact }: { contact: Schema<'Contact'> }) {
  const update = useUpdateContact(contact.id);
  const [rows, setRows] = useState<FieldRow[] | null>(null);
  const [problems, setProblems] = useState<RowProblems>({});
  const fields = Object.entries(contact.data).sort(([a], [b]) => a.localeCompare(b));
  const submit = (event: SubmitEvent) => {
    event.preventDefault();
    if (rows === null) return;
    const result = dataFromRows(rows);
    setProblems(result.problems ?? {});
    if (result.data === null) return;
    const patch = dataPatch(contact.data, result.data);
    if (Object.keys(patch).length === 0) {
      setRows(null);
      return;
    }
    update.mutate({ data: patch }, { onSuccess: () => setRows(null) });
  };
  return (
    <Card withBorder>
      <Group justify="space-between" mb="xs">
        <Text fw={600} component="h2">
          Custom fields
        </Text>
        {rows === null && (
          <Button
            size="xs"
            variant="default"
            onClick={() => {
              update.reset();
              setProblems({});
              setRows(rowsFromData(contact.data));
            }}
          >
            Edit fields
          </Button>
        )}
      </Group>
      {rows === null ? (
        fields.length === 0 ? (
          <Text size="sm" c="dimmed">
            No custom fields yet. Edit the fields to add some, or send them with an email or an
            event.
          </Text>
        ) : (
          <Table aria-label="Custom fields" layout="fixed">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Field</Table.Th>
                <Table.Th>Value</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {fields.map(([name, value]) => (
                <Table.Tr key={name}>
                  <Table.Td style={{ wordBreak: 'break-word' }}>{name}</Table.Td>
                  <Table.Td style={{ wordBreak: 'break-word' }}>{shown(value)}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        )
      ) : (
        <form onSubmit={submit}>
          <DataFieldsEditor
            rows={rows}
            onChange={setRows}
            problems={problems}
            error={update.error}
          />
          <ErrorAlert error={update.error} title="The fields were not saved" />
          <Group mt="md" gap="xs">
            <Button type="submit" loading={update.isPending}>
              Save fields
            </Button>
            <Button variant="default" onClick={() => setRows(null)} disabled={update.isPending}>
              Cancel
            </Button>
          </Group>
        </form>
      )}
    </Card>
  );
}
