/**
 * Who is in a segment, answered from the audience view: the MongoDB filter of a segment's
 * members (static: the contacts whose `segments` hold its id; dynamic: its condition compiled at
 * this instant), their count, and the validation of a condition against the project's segments.
 */
import type { Filter, ViewStore } from '@stamp/platform';

import { audienceView, liveContacts } from '../audience/projection.ts';
import {
  checkSegmentReferences,
  compileCondition,
  type Condition,
  parseCondition,
  type SegmentResolver,
} from '../condition/index.ts';
import type { KnownSegment } from './events.ts';
import { LIVE, segmentsView } from './views.ts';

/** Membership queries of segments. */
export interface SegmentMembership {
  /**
   * Parses `input` as the condition of segment `segmentId` of the project (absent: a condition
   * of no segment, such as a campaign's audience filter) and checks its references to the
   * project's segments. `field` names the input in errors (default `condition`).
   * @throws ApiError 422 VALIDATION_ERROR naming the path (`condition.groups.0.filters.1.field`),
   *   for a malformed condition, an unknown segment or a cycle of references.
   */
  validate(
    projectId: string,
    input: unknown,
    segmentId?: string,
    field?: string,
  ): Promise<Condition>;
  /** The filter of the segment's live members in the audience view, evaluated now. */
  filter(segment: KnownSegment): Promise<Filter>;
  /**
   * The project's segments as references of a condition: dynamic ones by their condition
   * (inlined), static ones by their members.
   */
  resolver(projectId: string): Promise<SegmentResolver>;
  /** The number of the segment's live members now. */
  count(segment: KnownSegment): Promise<number>;
  /**
   * The number of the project's live contacts that `condition` (validated by `validate`) matches
   * now: the count of a segment or an audience filter before it is saved.
   */
  countMatching(projectId: string, condition: Condition): Promise<number>;
}

/** Builds the membership queries over the segments and audience views. */
export function createSegmentMembership(
  views: ViewStore,
  now = (): Date => new Date(),
): SegmentMembership {
  const segments = segmentsView(views);
  const audience = audienceView(views);

  /**
   * The project's segments as references. A dynamic segment is tested by its condition (inlined)
   * whether or not its membership is tracked: the result is the same, and never behind.
   */
  async function resolverOf(projectId: string): Promise<SegmentResolver> {
    const found = await segments.find({ projectId, ...LIVE });
    const byId = new Map(found.map((segment) => [segment._id, segment]));
    return (id) => {
      const segment = byId.get(id);
      if (segment === undefined) return undefined;
      return segment.type === 'STATIC'
        ? { type: 'STATIC', trackMembership: false }
        : { type: 'DYNAMIC', condition: segment.condition ?? undefined, trackMembership: false };
    };
  }

  const membership: SegmentMembership = {
    resolver: resolverOf,

    async validate(projectId, input, segmentId, field = 'condition') {
      const condition = parseCondition(input, field);
      checkSegmentReferences(condition, {
        now: now(),
        resolveSegment: await resolverOf(projectId),
        field,
        ...(segmentId === undefined ? {} : { segmentId }),
      });
      return condition;
    },

    async filter(segment) {
      const live = liveContacts(segment.projectId);
      if (segment.type === 'STATIC' || segment.condition === null) {
        return { ...live, segments: segment.id };
      }
      const compiled = compileCondition(segment.condition, {
        now: now(),
        resolveSegment: await resolverOf(segment.projectId),
        segmentId: segment.id,
      });
      return { $and: [live, compiled] };
    },

    async count(segment) {
      return audience.countDocuments(await membership.filter(segment));
    },

    async countMatching(projectId, condition) {
      const compiled = compileCondition(condition, {
        now: now(),
        resolveSegment: await resolverOf(projectId),
      });
      return audience.countDocuments({ $and: [liveContacts(projectId), compiled] });
    },
  };
  return membership;
}
