/**
 * A live count of the contacts a condition matches while it is edited
 * (`POST /segments/count`, which saves nothing), debounced.
 */
import { useDebouncedValue } from '@mantine/hooks';
import { keepPreviousData, useQuery } from '@tanstack/react-query';

import { api, unwrap } from '../../api/client';
import { useProjectId } from '../../api/session';
import { type Condition, isComplete } from './language';

/** Milliseconds the condition must stay unchanged before it is counted. */
const DEBOUNCE_MS = 400;

/** The live count: undefined until a complete condition was counted. */
export interface ConditionCount {
  count: number | undefined;
  /** True while a count is under way. */
  counting: boolean;
  /** True when the condition is not complete yet (a filter lacks its field or value). */
  incomplete: boolean;
  /** Why the last count failed (the API names the filter at fault), or null. */
  error: unknown;
}

/** Counts the contacts `condition` matches (debounced); `enabled` false counts nothing. */
export function useConditionCount(condition: Condition, enabled = true): ConditionCount {
  const projectId = useProjectId();
  const [settled] = useDebouncedValue(condition, DEBOUNCE_MS);
  const complete = isComplete(settled);
  const query = useQuery({
    queryKey: [projectId, 'condition-count', JSON.stringify(settled)],
    enabled: enabled && complete,
    placeholderData: keepPreviousData,
    staleTime: 10_000,
    queryFn: async () =>
      (await unwrap(api.POST('/segments/count', { body: { condition: settled } }))).count,
  });
  return {
    count: complete ? query.data : undefined,
    counting: enabled && (query.isFetching || (isComplete(condition) && condition !== settled)),
    incomplete: !isComplete(condition),
    error: complete ? query.error : null,
  };
}
