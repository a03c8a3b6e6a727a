/**
 * Events, state and `evolve` of a segment (spec parts 2 and 4, "Segments"). Stream
 * `segment-<id>`: its definition, its static members (by contact id) and its cached count.
 */
import type { Condition } from '../condition/index.ts';

/** Stream category of segments (also the bus topic their projections read). */
export const SEGMENT_CATEGORY = 'segment';

/** Stream id of a segment. */
export const segmentStream = (id: string): string => `${SEGMENT_CATEGORY}-${id}`;

/** DYNAMIC: members are the contacts matching `condition`; STATIC: members are added by email. */
export type SegmentType = 'DYNAMIC' | 'STATIC';

/** A segment was created in a project. */
export interface SegmentCreated {
  type: 'SegmentCreated';
  data: {
    segmentId: string;
    projectId: string;
    name: string;
    description: string | null;
    segmentType: SegmentType;
    /** The condition of a DYNAMIC segment, null for a STATIC one. */
    condition: Condition | null;
    trackMembership: boolean;
    /** ISO 8601. */
    createdAt: string;
  };
}

/** Fields of a segment changed (only those present). */
export interface SegmentUpdated {
  type: 'SegmentUpdated';
  data: {
    name?: string;
    description?: string | null;
    condition?: Condition;
    trackMembership?: boolean;
    /** ISO 8601. */
    updatedAt: string;
  };
}

/** The segment was deleted. */
export interface SegmentDeleted {
  type: 'SegmentDeleted';
  data: { deletedAt: string };
}

/** Contacts joined a static segment (ids not yet members). */
export interface SegmentMembersAdded {
  type: 'SegmentMembersAdded';
  data: { contactIds: string[] };
}

/** Contacts left a static segment (ids that were members). */
export interface SegmentMembersRemoved {
  type: 'SegmentMembersRemoved';
  data: { contactIds: string[] };
}

/** The segment's members were counted (`refresh`, `compute`). */
export interface SegmentCounted {
  type: 'SegmentCounted';
  data: { memberCount: number; countedAt: string };
}

/** Any event of a segment stream. */
export type SegmentEvent =
  | SegmentCreated
  | SegmentUpdated
  | SegmentDeleted
  | SegmentMembersAdded
  | SegmentMembersRemoved
  | SegmentCounted;

/** Every segment event type (the projections' filter). */
export const SEGMENT_EVENT_TYPES: ReadonlySet<string> = new Set<SegmentEvent['type']>([
  'SegmentCreated',
  'SegmentUpdated',
  'SegmentDeleted',
  'SegmentMembersAdded',
  'SegmentMembersRemoved',
  'SegmentCounted',
]);

/** A segment that exists or existed. */
export interface KnownSegment {
  status: 'active' | 'deleted';
  id: string;
  projectId: string;
  name: string;
  description: string | null;
  type: SegmentType;
  condition: Condition | null;
  trackMembership: boolean;
  createdAt: string;
  updatedAt: string;
}

/** State of a segment stream; `absent` before its first event. */
export type SegmentState = { status: 'absent' } | KnownSegment;

/** State before the first event. */
export const initialSegment = (): SegmentState => ({ status: 'absent' });

/** Applies one segment event (members and counts do not change the state). */
export function evolve(state: SegmentState, event: SegmentEvent): SegmentState {
  switch (event.type) {
    case 'SegmentCreated': {
      const { data } = event;
      return {
        status: 'active',
        id: data.segmentId,
        projectId: data.projectId,
        name: data.name,
        description: data.description,
        type: data.segmentType,
        condition: data.condition,
        trackMembership: data.trackMembership,
        createdAt: data.createdAt,
        updatedAt: data.createdAt,
      };
    }
    case 'SegmentUpdated': {
      if (state.status === 'absent') return state;
      const { updatedAt, ...changed } = event.data;
      return { ...state, ...changed, updatedAt };
    }
    case 'SegmentDeleted':
      return state.status === 'absent' ? state : { ...state, status: 'deleted' };
    default:
      return state;
  }
}

/** Folds a stream's events into its state. */
export function fold(events: readonly { type: string; data: unknown }[]): SegmentState {
  let state = initialSegment();
  for (const event of events) {
    if (SEGMENT_EVENT_TYPES.has(event.type)) state = evolve(state, event as SegmentEvent);
  }
  return state;
}

/**
 * The slug of a segment name in its membership event names (API reference, "System events"):
 * lowercased, spaces to `-`, other non-word characters removed (`VIP Customers!` → `vip-customers`).
 */
export const segmentSlug = (name: string): string =>
  name
    .toLowerCase()
    .replace(/\s+/g, '-')
    .replace(/[^\w-]/g, '');
