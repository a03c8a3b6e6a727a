import { Button, Divider, NativeSelect, Stack } from '@mantine/core';

import { GroupEditor } from './GroupEditor';
import { type Condition, type ConditionGroup, newFilter } from './language';
import type { FilterOptions } from './useFilterOptions';

/**
 * A condition: its groups, joined by "all" (AND) or "any" (OR), and a button to add a group.
 * `path` numbers its groups ("" for the top condition: groups 1, 2…; "1" for the condition nested
 * in group 1: groups 1.1, 1.2…).
 */
export function ConditionEditor({
  condition,
  onChange,
  path,
  depth,
  options,
  excludeSegmentId,
}: {
  condition: Condition;
  onChange: (condition: Condition) => void;
  path: string;
  depth: number;
  options: FilterOptions;
  excludeSegmentId?: string | undefined;
}) {
  const groupPath = (index: number) => (path === '' ? `${index + 1}` : `${path}.${index + 1}`);
  const setGroup = (index: number, group: ConditionGroup) =>
    onChange({
      ...condition,
      groups: condition.groups.map((item, i) => (i === index ? group : item)),
    });
  const word = condition.logic === 'AND' ? 'and' : 'or';
  return (
    <Stack gap="sm">
      {condition.groups.length > 1 && (
        <NativeSelect
          label={path === '' ? 'Contacts must match' : `Nested groups of group ${path} must match`}
          data={[
            { value: 'AND', label: 'all of the groups' },
            { value: 'OR', label: 'any of the groups' },
          ]}
          value={condition.logic}
          onChange={(event) =>
            onChange({ ...condition, logic: event.currentTarget.value === 'OR' ? 'OR' : 'AND' })
          }
          maw={260}
        />
      )}
      {condition.groups.map((group, index) => (
        // Groups have no identity of their own; their place is their key.
        <Stack key={index} gap="sm">
          {index > 0 && <Divider label={word} labelPosition="center" />}
          <GroupEditor
            group={group}
            path={groupPath(index)}
            depth={depth}
            onChange={(next) => setGroup(index, next)}
            onRemove={
              condition.groups.length === 1
                ? undefined
                : () =>
                    onChange({
                      ...condition,
                      groups: condition.groups.filter((_, i) => i !== index),
                    })
            }
            options={options}
            excludeSegmentId={excludeSegmentId}
          />
        </Stack>
      ))}
      <Button
        variant="default"
        size="compact-sm"
        style={{ alignSelf: 'flex-start' }}
        onClick={() =>
          onChange({ ...condition, groups: [...condition.groups, { filters: [newFilter()] }] })
        }
      >
        {path === '' ? 'Add group' : `Add nested group to group ${path}`}
      </Button>
    </Stack>
  );
}
