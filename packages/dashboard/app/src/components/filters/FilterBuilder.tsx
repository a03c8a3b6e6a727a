/**
 * The builder of conditions in the API's filter language (segment `condition`, campaign
 * `audienceFilter`): groups of filters joined by AND or OR, nested groups, every field with the
 * comparisons it allows and the values they take. Data keys, event names and segments are
 * suggested from the project.
 */
import { Fieldset, Text } from '@mantine/core';

import type { Schema } from '../../api/client';
import { ConditionEditor } from './ConditionEditor';
import { useFilterOptions } from './useFilterOptions';

export { emptyCondition } from './language';

/**
 * Edits `value`, a whole condition, reporting each change through `onChange`. `label` names the
 * builder (its legend); `excludeSegmentId` keeps a segment from being offered as a field (a
 * segment's own condition may not name itself).
 */
export function FilterBuilder({
  value,
  onChange,
  label,
  excludeSegmentId,
}: {
  value: Schema<'FilterConditionInput'>;
  onChange: (value: Schema<'FilterConditionInput'>) => void;
  label?: string;
  excludeSegmentId?: string;
}) {
  const options = useFilterOptions();
  return (
    <Fieldset legend={label ?? 'Conditions'} variant="unstyled">
      {options.error !== null && options.error !== undefined && (
        <Text size="sm" c="red.8" mb="xs" role="status">
          Suggestions of fields, events or segments could not be loaded; you can still type them.
        </Text>
      )}
      <ConditionEditor
        condition={value}
        onChange={onChange}
        path=""
        depth={1}
        options={options}
        excludeSegmentId={excludeSegmentId}
      />
    </Fieldset>
  );
}
