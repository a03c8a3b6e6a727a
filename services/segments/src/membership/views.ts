/**
 * The views of tracked membership: `segmentMembers` (one document per segment and contact that
 * has a membership stream: its state as of a revision) and `segmentTimers` (durable timers that
 * re-evaluate a contact when the clock may change its membership).
 */
import type { TimerDocument, ViewCollection, ViewDocument, ViewStore } from '@stamp/platform';

/** Name of the members view. */
export const MEMBERS_VIEW = 'segmentMembers';

/** Name of the timers view (fired by the segments service's own TimerScheduler). */
export const SEGMENT_TIMERS = 'segmentTimers';

/** A document of the members view (`_id` = {@link memberKey}). */
export interface MemberView extends ViewDocument {
  projectId: string;
  segmentId: string;
  contactId: string;
  member: boolean;
  /** Revision of the membership stream this document reflects. */
  revision: number;
}

/** A pending timer of one segment and contact (`pair` = {@link memberKey}). */
export interface SegmentTimer extends TimerDocument {
  pair: string;
  contactId: string;
}

/** `_id` of a members document. */
export const memberKey = (segmentId: string, contactId: string): string =>
  `${segmentId}:${contactId}`;

/** The members view collection. */
export const membersView = (views: ViewStore): ViewCollection<MemberView> =>
  views.collection<MemberView>(MEMBERS_VIEW);

/** The timers view collection. */
export const segmentTimers = (views: ViewStore): ViewCollection<SegmentTimer> =>
  views.collection<SegmentTimer>(SEGMENT_TIMERS);

/**
 * Creates the indexes: members {segmentId, member, contactId} (a segment's members in contact
 * order) and {contactId}; timers {dueAt} (the scheduler), {pair} and {contactId}.
 */
export async function createMembershipIndexes(views: ViewStore): Promise<void> {
  const members = membersView(views);
  await members.createIndex({ segmentId: 1, member: 1, contactId: 1 });
  await members.createIndex({ contactId: 1 });
  const timers = segmentTimers(views);
  await timers.createIndex({ dueAt: 1 });
  await timers.createIndex({ pair: 1 });
  await timers.createIndex({ contactId: 1 });
}
