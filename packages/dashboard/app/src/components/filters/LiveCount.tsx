import { Group, Loader, Text } from '@mantine/core';

import { ErrorAlert } from '../ErrorAlert';
import { withConditionPaths } from './conditionErrors';
import type { ConditionCount } from './useConditionCount';

/** The live count of {@link useConditionCount} in words, announced as it changes. */
export function LiveCount({ count }: { count: ConditionCount }) {
  return (
    <div>
      <Group gap="xs" role="status" aria-live="polite">
        {count.counting && <Loader size="xs" aria-hidden />}
        <Text size="sm" fw={600}>
          {count.incomplete
            ? 'Finish every filter to see how many contacts match.'
            : count.count === undefined
              ? 'Counting the contacts that match…'
              : `${count.count.toLocaleString()} ${count.count === 1 ? 'contact matches' : 'contacts match'}${count.counting ? ' (updating)' : ''}`}
        </Text>
      </Group>
      <ErrorAlert error={withConditionPaths(count.error)} title="These filters cannot be counted" />
    </div>
  );
}
