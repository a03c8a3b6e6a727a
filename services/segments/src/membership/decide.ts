/** The decision of tracked membership: whether evaluating a contact enters or exits it. */
import { type MembershipEvent, membershipEventName, type MembershipState } from './events.ts';

/** The segment a decision is about. */
export interface TrackedSegment {
  id: string;
  name: string;
}

/**
 * The event that brings the membership `state` in line with whether the contact now `matches`
 * the segment's condition: `SegmentEntered` for a match that is not a member, `SegmentExited` for
 * a member that no longer matches, nothing otherwise (so deciding twice on the same answer
 * appends once).
 */
export function decideMembership(
  state: MembershipState,
  matches: boolean,
  segment: TrackedSegment,
  contactId: string,
): MembershipEvent | undefined {
  if (state.member === matches) return undefined;
  const data = { segmentId: segment.id, segmentName: segment.name, contactId };
  return matches
    ? { type: 'SegmentEntered', data: { name: membershipEventName(segment, 'entry'), ...data } }
    : { type: 'SegmentExited', data: { name: membershipEventName(segment, 'exit'), ...data } };
}
