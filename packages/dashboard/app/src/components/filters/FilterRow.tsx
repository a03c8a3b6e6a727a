import { Autocomplete, CloseButton, Group, NativeSelect } from '@mantine/core';

import {
  EMAIL_ACTIVITIES,
  FIELD_KINDS,
  fieldOf,
  fieldParts,
  type Filter,
  newFilter,
  operatorLabel,
  operatorsOf,
  shapeOf,
  withShape,
} from './language';
import type { FilterOptions } from './useFilterOptions';
import { ValueInput } from './ValueInput';

/**
 * One filter of the builder: the field (its kind, then the data key, event name, activity or
 * segment), the comparison the field allows, and the value the comparison takes.
 */
export function FilterRow({
  filter,
  onChange,
  onRemove,
  name,
  options,
  excludeSegmentId,
}: {
  filter: Filter;
  onChange: (filter: Filter) => void;
  /** Removes the filter; undefined when it is the only one left where it is. */
  onRemove: (() => void) | undefined;
  /** The filter's name for assistive technology, such as "Filter 2 of group 1". */
  name: string;
  options: FilterOptions;
  excludeSegmentId?: string | undefined;
}) {
  const { kind, name: fieldName } = fieldParts(filter.field);
  const shape = shapeOf(kind, filter.operator) ?? 'none';
  const dataType = options.dataFields.find((field) => field.key === fieldName)?.type;
  const setName = (next: string) => onChange({ ...filter, field: fieldOf(kind, next) });
  const segments = options.segments.filter((segment) => segment.id !== excludeSegmentId);
  return (
    <Group role="group" aria-label={name} gap="xs" align="flex-end" wrap="wrap">
      <NativeSelect
        label="Field"
        data={FIELD_KINDS.map((item) => ({ value: item.value, label: item.label }))}
        value={kind}
        onChange={(event) => {
          const next = FIELD_KINDS.find((item) => item.value === event.currentTarget.value);
          if (next === undefined) return;
          const firstName = next.value === 'emailActivity' ? EMAIL_ACTIVITIES[0].value : '';
          onChange(newFilter(next.value, firstName));
        }}
      />
      {kind === 'data' && (
        <Autocomplete
          label="Data field"
          placeholder="plan"
          data={options.dataFields.map((field) => field.key)}
          value={fieldName}
          onChange={setName}
          w={180}
        />
      )}
      {kind === 'event' && (
        <Autocomplete
          label="Event name"
          placeholder="signed-up"
          data={options.eventNames}
          value={fieldName}
          onChange={setName}
          w={200}
        />
      )}
      {kind === 'emailActivity' && (
        <NativeSelect
          label="Activity"
          data={EMAIL_ACTIVITIES.map((item) => ({ value: item.value, label: item.label }))}
          value={fieldName}
          onChange={(event) => setName(event.currentTarget.value)}
        />
      )}
      {kind === 'segment' && (
        <NativeSelect
          label="Segment"
          data={[
            { value: '', label: 'Choose a segment', disabled: true },
            ...segments.map((segment) => ({ value: segment.id, label: segment.name })),
            // A segment not (or no longer) listed stays shown by its id.
            ...(fieldName !== '' && !segments.some((segment) => segment.id === fieldName)
              ? [{ value: fieldName, label: fieldName }]
              : []),
          ]}
          value={fieldName}
          onChange={(event) => setName(event.currentTarget.value)}
        />
      )}
      <NativeSelect
        label="Comparison"
        data={operatorsOf(kind).map((operator) => ({
          value: operator,
          label: operatorLabel(kind, operator),
        }))}
        value={filter.operator}
        onChange={(event) => {
          const operator = operatorsOf(kind).find((item) => item === event.currentTarget.value);
          if (operator !== undefined) onChange(withShape(filter, kind, operator));
        }}
      />
      <ValueInput
        key={`${kind}:${filter.operator}`}
        shape={shape}
        filter={filter}
        onChange={onChange}
        suggested={dataType}
      />
      {onRemove !== undefined && (
        <CloseButton aria-label={`Remove ${name.toLowerCase()}`} onClick={onRemove} mb={4} />
      )}
    </Group>
  );
}
