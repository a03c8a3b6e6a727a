/**
 * The API names the part of a condition at fault by its path
 * (`condition.groups.0.filters.1.value`); the builder numbers groups and filters for people
 * (group 1, filter 2). This turns the one into the other.
 */
import { ApiError } from '../../api/client';

/**
 * `path` (below `root`, such as `condition` or `audienceFilter`) in the builder's words:
 * `condition.groups.0.conditions.groups.1.filters.0.value` → `Group 1.2, filter 1: value`;
 * undefined when `path` is not below `root`.
 */
export function describeConditionPath(path: string, root: string): string | undefined {
  if (path !== root && !path.startsWith(`${root}.`)) return undefined;
  const parts = path
    .slice(root.length)
    .split('.')
    .filter((part) => part !== '');
  const groups: number[] = [];
  let filter: number | undefined;
  const rest: string[] = [];
  for (let index = 0; index < parts.length; index += 1) {
    const part = parts[index];
    const next = Number(parts[index + 1]);
    if (part === 'groups' && Number.isInteger(next)) {
      groups.push(next + 1);
      index += 1;
    } else if (part === 'filters' && Number.isInteger(next)) {
      filter = next + 1;
      index += 1;
    } else if (part !== 'conditions' && part !== undefined) {
      rest.push(part);
    }
  }
  const where = [
    groups.length === 0 ? 'Filters' : `Group ${groups.join('.')}`,
    ...(filter === undefined ? [] : [`filter ${filter}`]),
  ].join(', ');
  return rest.length === 0 ? where : `${where}: ${rest.join('.')}`;
}

/** `error` with the condition paths of its field errors (below `root`) in the builder's words. */
export function withConditionPaths(error: unknown, root = 'condition'): unknown {
  if (!(error instanceof ApiError)) return error;
  return new ApiError(
    error.status,
    error.code,
    error.message,
    error.errors.map((item) => ({
      ...item,
      field: describeConditionPath(item.field, root) ?? item.field,
    })),
    error.suggestion,
  );
}
