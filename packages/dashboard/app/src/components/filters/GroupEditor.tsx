import { Button, Group, Paper, Stack, Text } from '@mantine/core';

// A nested condition is edited by the editor of conditions itself (the modules import each
// other).
import { ConditionEditor } from './ConditionEditor';
import { FilterRow } from './FilterRow';
import { type ConditionGroup, type Filter, newFilter } from './language';
import type { FilterOptions } from './useFilterOptions';

/** Most levels of nested conditions the API takes (the top condition is level 1). */
export const MAX_DEPTH = 5;

/**
 * One group of a condition: its filters, all of which a contact must match, and optionally a
 * nested condition that must hold too; buttons to add a filter or a nested group.
 */
export function GroupEditor({
  group,
  onChange,
  onRemove,
  path,
  depth,
  options,
  excludeSegmentId,
}: {
  group: ConditionGroup;
  onChange: (group: ConditionGroup) => void;
  /** Removes the group; undefined when it is the only one of its condition. */
  onRemove: (() => void) | undefined;
  /** The group's number in words, such as "1" or "1.2" for a nested one. */
  path: string;
  depth: number;
  options: FilterOptions;
  excludeSegmentId?: string | undefined;
}) {
  const setFilter = (index: number, filter: Filter) =>
    onChange({ ...group, filters: group.filters.map((item, i) => (i === index ? filter : item)) });
  const removeFilter = (index: number) =>
    onChange({ ...group, filters: group.filters.filter((_, i) => i !== index) });
  const lastItem = group.filters.length === 1 && group.conditions === undefined;
  return (
    <Paper withBorder p="sm" radius="md" role="group" aria-label={`Group ${path}`}>
      <Stack gap="sm">
        <Group justify="space-between">
          <Text size="sm" fw={600}>
            Group {path}: contacts matching all of these
          </Text>
          {onRemove !== undefined && (
            <Button size="compact-sm" variant="subtle" color="red" onClick={onRemove}>
              Remove group {path}
            </Button>
          )}
        </Group>
        {group.filters.map((filter, index) => (
          <FilterRow
            // Filters have no identity of their own; their place is their key.
            key={index}
            filter={filter}
            name={`Filter ${index + 1} of group ${path}`}
            onChange={(next) => setFilter(index, next)}
            onRemove={lastItem ? undefined : () => removeFilter(index)}
            options={options}
            excludeSegmentId={excludeSegmentId}
          />
        ))}
        {group.conditions !== undefined && (
          <Paper bg="gray.0" p="sm" radius="md">
            <Group justify="space-between" mb="xs">
              <Text size="sm" fw={600}>
                …and the nested groups of group {path}
              </Text>
              <Button
                size="compact-sm"
                variant="subtle"
                color="red"
                disabled={group.filters.length === 0}
                onClick={() => onChange({ filters: group.filters })}
              >
                Remove nested groups
              </Button>
            </Group>
            <ConditionEditor
              condition={group.conditions}
              onChange={(conditions) => onChange({ ...group, conditions })}
              path={path}
              depth={depth + 1}
              options={options}
              excludeSegmentId={excludeSegmentId}
            />
          </Paper>
        )}
        <Group gap="xs">
          <Button
            size="compact-sm"
            variant="light"
            onClick={() => onChange({ ...group, filters: [...group.filters, newFilter()] })}
          >
            Add filter to group {path}
          </Button>
          {group.conditions === undefined && depth < MAX_DEPTH && (
            <Button
              size="compact-sm"
              variant="default"
              onClick={() =>
                onChange({
                  ...group,
                  conditions: { logic: 'OR', groups: [{ filters: [newFilter()] }] },
                })
              }
            >
              Add nested groups to group {path}
            </Button>
          )}
        </Group>
      </Stack>
    </Paper>
  );
}
