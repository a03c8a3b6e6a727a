/** Checks of the segments a condition references (`segment.<id>` fields). */
import { validationError } from '@stamp/http-kit';

import {
  type Condition,
  type ConditionContext,
  type Filter,
  MAX_EXPANDED_FILTERS,
  parseField,
  type SegmentReference,
  type SegmentResolver,
} from './condition.ts';

/** Calls `visit` with each filter of `condition` (nested conditions included) and its path. */
export function forEachFilter(
  condition: Condition,
  path: string,
  visit: (filter: Filter, path: string) => void,
): void {
  for (const [index, group] of condition.groups.entries()) {
    const groupPath = `${path}.groups.${index}`;
    for (const [position, filter] of group.filters.entries()) {
      visit(filter, `${groupPath}.filters.${position}`);
    }
    if (group.conditions !== undefined) {
      forEachFilter(group.conditions, `${groupPath}.conditions`, visit);
    }
  }
}

/** The segment id of a `segment.<id>` filter, else undefined. */
export function segmentIdOf(filter: Filter): string | undefined {
  const ref = parseField(filter.field);
  return ref?.kind === 'segment' ? ref.id : undefined;
}

/**
 * Whether the condition of a referenced segment is inlined (an untracked dynamic segment) rather
 * than read from the `segments` field of the audience document (a static or tracked segment).
 */
export const isInlined = (segment: SegmentReference): boolean =>
  segment.type === 'DYNAMIC' && !segment.trackMembership;

/**
 * Checks the segments `condition` references, directly or through the conditions of dynamic
 * segments (tracked ones included, whose membership depends on their own condition), so that
 * compiling or evaluating it terminates and means something:
 * - every segment referenced by `condition` or by the condition of an untracked dynamic segment
 *   it inlines exists, and every such untracked segment has a condition;
 * - no chain of references comes back to a segment on it, nor to `context.segmentId`;
 * - once the conditions of the untracked dynamic segments are inlined, the condition has at most
 *   {@link MAX_EXPANDED_FILTERS} filters.
 * @throws ApiError 422 VALIDATION_ERROR naming the field of the filter of `condition` through which
 *   the problem is reached (`<context.field>.groups.0.filters.1.field`), with the code
 *   `unknown_segment`, `segment_cycle` or `too_big`.
 */
export function checkSegmentReferences(condition: Condition, context: ConditionContext): void {
  const { resolveSegment } = context;
  const root = context.field ?? 'condition';
  const visiting: string[] = context.segmentId === undefined ? [] : [context.segmentId];
  /** Expanded filter count of an inlined segment (or 0), by `<needed>:<id>`; acyclic ids. */
  const sizes = new Map<string, number>();
  let total = 0;
  forEachFilter(condition, root, (filter, path) => {
    const id = segmentIdOf(filter);
    const origin = `${path}.field`;
    total += 1 + (id === undefined ? 0 : referenceSize(id, true, origin));
    if (total > MAX_EXPANDED_FILTERS) {
      throw validationError([
        {
          field: origin,
          message:
            `With the conditions of the segments it references, a condition may have at most ` +
            `${MAX_EXPANDED_FILTERS} filters`,
          code: 'too_big',
        },
      ]);
    }
  });

  /**
   * Filters that referencing segment `id` adds once inlined (0 unless an untracked dynamic
   * segment); `needed` when its condition is inlined (then every reference in it must resolve).
   */
  function referenceSize(id: string, needed: boolean, origin: string): number {
    const memo = sizes.get(`${needed}:${id}`);
    if (memo !== undefined) return memo;
    if (visiting.includes(id)) {
      const chain = [...visiting.slice(visiting.indexOf(id)), id].join(' → ');
      throw validationError([
        {
          field: origin,
          message: `Segment references form a cycle: ${chain}`,
          code: 'segment_cycle',
        },
      ]);
    }
    const segment = resolveSegment(id);
    if (
      segment === undefined ||
      (needed && isInlined(segment) && segment.condition === undefined)
    ) {
      if (!needed) return 0;
      throw validationError([
        {
          field: origin,
          message:
            segment === undefined
              ? `Unknown segment ${id}`
              : `Segment ${id} is dynamic and has no condition`,
          code: 'unknown_segment',
        },
      ]);
    }
    let size = 0;
    if (segment.type === 'DYNAMIC' && segment.condition !== undefined) {
      const inlined = isInlined(segment);
      visiting.push(id);
      forEachFilter(segment.condition, '', (filter) => {
        const child = segmentIdOf(filter);
        const added =
          1 + (child === undefined ? 0 : referenceSize(child, needed && inlined, origin));
        size = Math.min(size + added, MAX_EXPANDED_FILTERS + 1);
      });
      visiting.pop();
      if (!inlined) size = 0;
    }
    sizes.set(`${needed}:${id}`, size);
    return size;
  }
}

/**
 * The referenced segment `id`, which {@link checkSegmentReferences} found.
 * @throws Error when it is unknown (the check was not made).
 */
export function resolvedSegment(resolveSegment: SegmentResolver, id: string): SegmentReference {
  const segment = resolveSegment(id);
  if (segment === undefined) throw new Error(`segment ${id} was not checked`);
  return segment;
}
