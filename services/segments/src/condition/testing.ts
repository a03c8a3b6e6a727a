/** Helpers of the condition tests: audience documents, segment resolvers, one-filter conditions. */
import type { AudienceDocument } from './audience.ts';
import type {
  Condition,
  ConditionContext,
  Filter,
  SegmentReference,
  SegmentResolver,
} from './condition.ts';

/** The `now` of the tests. */
export const NOW = new Date('2025-06-15T12:00:00.000Z');

/** ISO 8601 text of `NOW` shifted by `ms` milliseconds. */
export const atOffset = (ms: number): string => new Date(NOW.getTime() + ms).toISOString();

/** An audience document: a subscribed contact created at `NOW − 5 days`, with `overrides`. */
export function audienceDocument(overrides: Partial<AudienceDocument> = {}): AudienceDocument {
  return {
    _id: 'c1',
    projectId: 'p1',
    email: 'ann.smith@example.org',
    subscribed: true,
    createdAt: atOffset(-5 * 86_400_000),
    updatedAt: atOffset(-60_000),
    data: {},
    events: {},
    emails: {},
    segments: [],
    ...overrides,
  };
}

/** A resolver over `segments` (id to reference). */
export const resolverOf =
  (segments: Record<string, SegmentReference>): SegmentResolver =>
  (id) =>
    Object.hasOwn(segments, id) ? segments[id] : undefined;

/** A context at `NOW` over `segments`. */
export const contextOf = (
  segments: Record<string, SegmentReference> = {},
  extra: Partial<ConditionContext> = {},
): ConditionContext => ({ now: NOW, resolveSegment: resolverOf(segments), ...extra });

/** The condition made of `filters` in one group. */
export const allOf = (...filters: Filter[]): Condition => ({
  logic: 'AND',
  groups: [{ filters }],
});
