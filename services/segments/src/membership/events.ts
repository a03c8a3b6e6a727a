/**
 * Events and state of tracked segment membership (API reference, "System events and activity"):
 * one stream per segment and contact, `segmentMembership-<derived id of both>`, in which
 * `SegmentEntered` and `SegmentExited` alternate (an entry first), with the timers'
 * `SegmentMembershipDue` in between. The stream's revision guards every decision, so that a
 * replayed or redelivered trigger never enters or exits a contact twice.
 */
import {
  SEGMENT_MEMBERSHIP_STREAM_CATEGORY,
  type SegmentMembershipStreamEvents,
} from '@stamp/contracts';
import { derivedId } from '@stamp/platform';

import { segmentSlug } from '../segments/events.ts';

/** Stream category of memberships (also their bus topic). */
export const MEMBERSHIP_CATEGORY = SEGMENT_MEMBERSHIP_STREAM_CATEGORY;

/** Stream id of the membership of `contactId` in `segmentId`. */
export const membershipStream = (segmentId: string, contactId: string): string =>
  `${MEMBERSHIP_CATEGORY}-${derivedId(`${MEMBERSHIP_CATEGORY}:${segmentId}:${contactId}`)}`;

/** Any event of a membership stream. */
export type MembershipEvent = {
  [Type in keyof SegmentMembershipStreamEvents]: {
    type: Type;
    data: SegmentMembershipStreamEvents[Type];
  };
}[keyof SegmentMembershipStreamEvents];

/** State of a membership stream: whether the contact is a member, and the stream's revision. */
export interface MembershipState {
  member: boolean;
  /** Revision of the stream's last event; -1 when it has none. */
  revision: number;
}

/** State of a stream without events. */
export const NO_MEMBERSHIP: MembershipState = { member: false, revision: -1 };

/** Folds a membership stream's events (in order, with their revisions). */
export function foldMembership(
  events: readonly { type: string; revision: number }[],
): MembershipState {
  let state = NO_MEMBERSHIP;
  for (const event of events) {
    if (event.type === 'SegmentEntered') state = { member: true, revision: event.revision };
    else if (event.type === 'SegmentExited') state = { member: false, revision: event.revision };
    else state = { ...state, revision: event.revision };
  }
  return state;
}

/**
 * The system event name of a membership change (API reference, "System events and activity"):
 * `segment.<slug>.entry` or `segment.<slug>.exit`; the segment id stands in for a name without
 * a single word character.
 */
export function membershipEventName(
  segment: { id: string; name: string },
  change: 'entry' | 'exit',
): string {
  const slug = segmentSlug(segment.name);
  return `segment.${slug === '' || /^-+$/.test(slug) ? segment.id : slug}.${change}`;
}
