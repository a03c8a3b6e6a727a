import { Button, CloseButton, Group, NativeSelect, Stack, Text, TextInput } from '@mantine/core';

import { fieldError } from '../../../components/ErrorAlert';
import type { ContactUpdate, ValueKind } from '../steps';
import type { ConfigFieldsProps } from './types';
import { ValueField } from './ValueFields';

const KINDS: readonly { value: ContactUpdate['kind']; label: string }[] = [
  { value: 'string', label: 'Set to text' },
  { value: 'number', label: 'Set to a number' },
  { value: 'boolean', label: 'Set to yes or no' },
  { value: 'remove', label: 'Remove the field' },
];

const ACTIONS = [
  { value: 'none', label: 'Leave it as it is' },
  { value: 'subscribe', label: 'Subscribe the contact' },
  { value: 'unsubscribe', label: 'Unsubscribe the contact' },
] as const;

/** An UPDATE_CONTACT step: data fields to set or remove, and a change of subscription. */
export function UpdateContactFields({
  draft,
  onChange,
  error,
}: ConfigFieldsProps<'UPDATE_CONTACT'>) {
  const setUpdate = (index: number, update: ContactUpdate) =>
    onChange({ ...draft, updates: draft.updates.map((item, i) => (i === index ? update : item)) });
  return (
    <Stack gap="sm">
      <Stack gap={6}>
        <Text size="sm" fw={500}>
          Data fields
        </Text>
        {draft.updates.length === 0 && (
          <Text size="sm" c="dimmed">
            No data changes.
          </Text>
        )}
        {draft.updates.map((update, index) => (
          // Updates have no identity of their own; their place is their key.
          <Group key={index} gap="xs" align="flex-end" wrap="wrap">
            <TextInput
              label={`Field ${index + 1}`}
              value={update.key}
              w={140}
              onChange={(event) => setUpdate(index, { ...update, key: event.currentTarget.value })}
              error={fieldError(error, 'config.updates')}
            />
            <NativeSelect
              label={`Change ${index + 1}`}
              data={KINDS.map((item) => ({ value: item.value, label: item.label }))}
              value={update.kind}
              onChange={(event) => {
                const kind = KINDS.find((item) => item.value === event.currentTarget.value);
                if (kind !== undefined) setUpdate(index, { ...update, kind: kind.value });
              }}
            />
            {update.kind !== 'remove' && (
              <ValueField
                label={`Value ${index + 1}`}
                kind={update.kind satisfies ValueKind}
                value={update.value}
                onChange={(value) => setUpdate(index, { ...update, value })}
              />
            )}
            <CloseButton
              aria-label={`Remove change ${index + 1}`}
              mb={4}
              onClick={() =>
                onChange({ ...draft, updates: draft.updates.filter((_, i) => i !== index) })
              }
            />
          </Group>
        ))}
        <Button
          size="compact-sm"
          variant="default"
          style={{ alignSelf: 'flex-start' }}
          onClick={() =>
            onChange({
              ...draft,
              updates: [...draft.updates, { key: '', kind: 'string', value: '' }],
            })
          }
        >
          Add a data change
        </Button>
      </Stack>
      <NativeSelect
        label="Subscription"
        data={ACTIONS.map((item) => ({ value: item.value, label: item.label }))}
        value={draft.subscriptionAction}
        onChange={(event) => {
          const action = ACTIONS.find((item) => item.value === event.currentTarget.value);
          if (action !== undefined) onChange({ ...draft, subscriptionAction: action.value });
        }}
        error={fieldError(error, 'config.subscriptionAction')}
      />
    </Stack>
  );
}
