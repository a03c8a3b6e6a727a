/**
 * Pure deciders of segments: command + current state → events, throwing ApiError for rule
 * violations (spec parts 2 and 4, "Segments"). No I/O here.
 */
import { ApiError, notFound, validationError } from '@stamp/http-kit';

import type { Condition } from '../condition/index.ts';
import type {
  KnownSegment,
  SegmentEvent,
  SegmentState,
  SegmentType,
  SegmentUpdated,
} from './events.ts';

/** A segment to create, validated (see `api.ts`). */
export interface CreateSegment {
  segmentId: string;
  projectId: string;
  name: string;
  description: string | null;
  type: SegmentType;
  condition: Condition | null;
  trackMembership: boolean;
}

/** A change of a segment, validated; absent fields are kept. */
export interface UpdateSegment {
  name?: string;
  description?: string | null;
  condition?: Condition;
  trackMembership?: boolean;
}

const segmentNotFound = (): ApiError => notFound('SEGMENT_NOT_FOUND', 'Segment not found');

/**
 * The segment of `projectId` in `state`.
 * @throws ApiError 404 SEGMENT_NOT_FOUND when it does not exist, was deleted, or belongs to
 *   another project.
 */
export function requireSegment(state: SegmentState, projectId: string): KnownSegment {
  if (state.status !== 'active' || state.projectId !== projectId) throw segmentNotFound();
  return state;
}

/**
 * Creates a segment: a DYNAMIC one has a condition, a STATIC one none and no membership
 * tracking (its members are what was added).
 * @throws ApiError 422 VALIDATION_ERROR (`condition` missing on DYNAMIC or present on STATIC;
 *   `trackMembership` on STATIC).
 */
export function decideCreate(command: CreateSegment, now: Date): SegmentEvent[] {
  if (command.type === 'DYNAMIC' && command.condition === null) {
    throw validationError([
      { field: 'condition', message: 'A DYNAMIC segment needs a condition', code: 'required' },
    ]);
  }
  if (command.type === 'STATIC' && command.condition !== null) {
    throw validationError([
      {
        field: 'condition',
        message: 'A STATIC segment has no condition: add its members by email',
        code: 'not_allowed',
      },
    ]);
  }
  if (command.type === 'STATIC' && command.trackMembership) {
    throw validationError([
      {
        field: 'trackMembership',
        message: 'Membership is tracked for DYNAMIC segments only',
        code: 'not_allowed',
      },
    ]);
  }
  return [
    {
      type: 'SegmentCreated',
      data: {
        segmentId: command.segmentId,
        projectId: command.projectId,
        name: command.name,
        description: command.description,
        segmentType: command.type,
        condition: command.condition,
        trackMembership: command.trackMembership,
        createdAt: now.toISOString(),
      },
    },
  ];
}

/**
 * Changes the fields given that differ from the segment's; nothing when none does.
 * @throws ApiError 404 SEGMENT_NOT_FOUND; 422 VALIDATION_ERROR for a `condition` or
 *   `trackMembership: true` on a STATIC segment.
 */
export function decideUpdate(
  state: SegmentState,
  projectId: string,
  command: UpdateSegment,
  now: Date,
): SegmentEvent[] {
  const segment = requireSegment(state, projectId);
  if (segment.type === 'STATIC' && command.condition !== undefined) {
    throw validationError([
      { field: 'condition', message: 'A STATIC segment has no condition', code: 'not_allowed' },
    ]);
  }
  if (segment.type === 'STATIC' && command.trackMembership === true) {
    throw validationError([
      {
        field: 'trackMembership',
        message: 'Membership is tracked for DYNAMIC segments only',
        code: 'not_allowed',
      },
    ]);
  }
  const changed: Omit<SegmentUpdated['data'], 'updatedAt'> = {};
  if (command.name !== undefined && command.name !== segment.name) changed.name = command.name;
  if (command.description !== undefined && command.description !== segment.description) {
    changed.description = command.description;
  }
  if (
    command.condition !== undefined &&
    JSON.stringify(command.condition) !== JSON.stringify(segment.condition)
  ) {
    changed.condition = command.condition;
  }
  if (
    command.trackMembership !== undefined &&
    command.trackMembership !== segment.trackMembership
  ) {
    changed.trackMembership = command.trackMembership;
  }
  if (Object.keys(changed).length === 0) return [];
  return [{ type: 'SegmentUpdated', data: { ...changed, updatedAt: now.toISOString() } }];
}

/**
 * Deletes a segment.
 * @throws ApiError 404 SEGMENT_NOT_FOUND.
 */
export function decideDelete(state: SegmentState, projectId: string, now: Date): SegmentEvent[] {
  requireSegment(state, projectId);
  return [{ type: 'SegmentDeleted', data: { deletedAt: now.toISOString() } }];
}

/**
 * The segment whose members are changed by email.
 * @throws ApiError 404 SEGMENT_NOT_FOUND; 400 BAD_REQUEST for a DYNAMIC segment (its members
 *   are the contacts matching its condition).
 */
export function requireStatic(state: SegmentState, projectId: string): KnownSegment {
  const segment = requireSegment(state, projectId);
  if (segment.type !== 'STATIC') {
    throw new ApiError(
      400,
      'BAD_REQUEST',
      'Members are added to and removed from STATIC segments only; a DYNAMIC segment holds the contacts matching its condition',
    );
  }
  return segment;
}

/**
 * Adds contacts to a static segment: `SegmentMembersAdded` of those not in `members`, nothing
 * when every one is.
 * @throws ApiError as {@link requireStatic}.
 */
export function decideAddMembers(
  state: SegmentState,
  projectId: string,
  contactIds: readonly string[],
  members: ReadonlySet<string>,
): SegmentEvent[] {
  requireStatic(state, projectId);
  const added = [...new Set(contactIds)].filter((id) => !members.has(id));
  return added.length === 0 ? [] : [{ type: 'SegmentMembersAdded', data: { contactIds: added } }];
}

/**
 * Removes contacts from a static segment: `SegmentMembersRemoved` of those in `members`,
 * nothing when none is.
 * @throws ApiError as {@link requireStatic}.
 */
export function decideRemoveMembers(
  state: SegmentState,
  projectId: string,
  contactIds: readonly string[],
  members: ReadonlySet<string>,
): SegmentEvent[] {
  requireStatic(state, projectId);
  const removed = [...new Set(contactIds)].filter((id) => members.has(id));
  return removed.length === 0
    ? []
    : [{ type: 'SegmentMembersRemoved', data: { contactIds: removed } }];
}

/**
 * Records a count of the segment's members, when it differs from the cached one.
 * @throws ApiError 404 SEGMENT_NOT_FOUND.
 */
export function decideCount(
  state: SegmentState,
  projectId: string,
  memberCount: number,
  cached: number | null,
  now: Date,
): SegmentEvent[] {
  requireSegment(state, projectId);
  if (cached === memberCount) return [];
  return [{ type: 'SegmentCounted', data: { memberCount, countedAt: now.toISOString() } }];
}
