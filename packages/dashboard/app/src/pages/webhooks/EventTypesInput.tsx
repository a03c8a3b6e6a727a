import { MultiSelect, Pill, Stack, Text } from '@mantine/core';

import { EVENT_TYPE_OPTIONS, EVENT_TYPES, type EventType, isEventType } from './eventTypes';

/** Picks the event types of a webhook endpoint (several; `*` for every one). */
export function EventTypesInput({
  value,
  onChange,
  error,
}: {
  value: EventType[];
  onChange: (value: EventType[]) => void;
  error?: string | undefined;
}) {
  return (
    <MultiSelect
      label="Events"
      description="The events posted to this URL"
      placeholder={value.length === 0 ? 'Choose one or more events' : undefined}
      required
      searchable
      data={EVENT_TYPE_OPTIONS}
      value={value}
      onChange={(next) => onChange(next.filter(isEventType))}
      error={error}
      renderOption={({ option }) => (
        <Stack gap={0}>
          <Text size="sm">{option.label}</Text>
          <Text size="xs" c="dimmed">
            {isEventType(option.value) ? EVENT_TYPES[option.value] : ''}
          </Text>
        </Stack>
      )}
      // The remove button of each chosen event is reachable by keyboard and named.
      renderPill={({ value: type, onRemove }) => (
        <Pill
          withRemoveButton
          onRemove={onRemove}
          removeButtonProps={{ tabIndex: 0, 'aria-hidden': false, 'aria-label': `Remove ${type}` }}
        >
          {type}
        </Pill>
      )}
    />
  );
}
