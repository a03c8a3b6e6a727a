/**
 * The `segments` view (one document per segment) and the resource the routes answer.
 */
import type { ViewCollection, ViewDocument, ViewStore } from '@stamp/platform';

import type { Condition } from '../condition/index.ts';
import type { SegmentType } from './events.ts';

/** Name of the segments view. */
export const SEGMENTS_VIEW = 'segments';

/** A document of the `segments` view (`_id` = segment id; dates ISO 8601). */
export interface SegmentView extends ViewDocument {
  projectId: string;
  name: string;
  description: string | null;
  type: SegmentType;
  condition: Condition | null;
  trackMembership: boolean;
  /** Cached member count: kept by member changes (STATIC), set by counts (both); null before. */
  memberCount: number | null;
  countedAt: string | null;
  createdAt: string;
  updatedAt: string;
  /** Set once the segment was deleted (the document stays, without its condition). */
  deletedAt?: string;
  /** Revision of the segment stream this document reflects. */
  revision: number;
}

/** The filter of segments that were not deleted. */
export const LIVE = { deletedAt: { $exists: false } } as const;

/** The segments view collection. */
export const segmentsView = (views: ViewStore): ViewCollection<SegmentView> =>
  views.collection<SegmentView>(SEGMENTS_VIEW);

/** A segment as the routes answer it (spec part 2, "Segment"). */
export interface SegmentResource {
  id: string;
  projectId: string;
  name: string;
  description: string | null;
  type: SegmentType;
  condition: Condition | null;
  trackMembership: boolean;
  memberCount: number;
  createdAt: string;
  updatedAt: string;
}

/** The resource of a view document (`memberCount` 0 before the first count). */
export const toResource = (document: SegmentView): SegmentResource => ({
  id: document._id,
  projectId: document.projectId,
  name: document.name,
  description: document.description,
  type: document.type,
  condition: document.condition,
  trackMembership: document.trackMembership,
  memberCount: document.memberCount ?? 0,
  createdAt: document.createdAt,
  updatedAt: document.updatedAt,
});
