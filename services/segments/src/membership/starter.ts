/**
 * The start of tracking (consumer group `segments-membership`, topic `segment`): when a dynamic
 * segment is created with `trackMembership`, or an update turns tracking on or changes the
 * condition of a tracked segment, a full pass enters the contacts that match and exits the members
 * that no longer do. The pass starts once incremental evaluation uses the new definition (see
 * `MembershipTracker.definitionSeen`), so that no contact changed meanwhile is missed. The pass is
 * idempotent, so a redelivered event changes nothing more.
 */
import type { EventHandler, Logger } from '@stamp/platform';
import { entityIdOf } from '@stamp/contracts';

import type { SegmentCommands } from '../segments/commands.ts';
import type { SegmentEvent } from '../segments/events.ts';
import type { MembershipTracker } from './tracker.ts';

/** Consumer group of the starter. */
export const MEMBERSHIP_GROUP = 'segments-membership';

/** Dependencies of {@link membershipStarter}. */
export interface MembershipStarterDeps {
  commands: Pick<SegmentCommands, 'load'>;
  tracker: Pick<MembershipTracker, 'compute' | 'definitionSeen'>;
  logger: Logger;
}

/** Whether a segment event starts (or restarts) the tracking of its segment's membership. */
export function startsTracking(event: SegmentEvent): boolean {
  switch (event.type) {
    case 'SegmentCreated':
      return event.data.trackMembership && event.data.segmentType === 'DYNAMIC';
    case 'SegmentUpdated':
      return event.data.trackMembership === true || event.data.condition !== undefined;
    default:
      return false;
  }
}

/** The handler of the starter: a full pass of the segment as it is now (read from its stream). */
export function membershipStarter(deps: MembershipStarterDeps): EventHandler {
  return async (event) => {
    if (!startsTracking({ type: event.type, data: event.data } as SegmentEvent)) return;
    const segmentId = entityIdOf(event.streamId);
    // Events applied after this point are evaluated against the new definition; the pass covers
    // the ones before.
    await deps.tracker.definitionSeen(segmentId, event.revision);
    const { state } = await deps.commands.load(segmentId);
    if (state.status !== 'active' || !state.trackMembership) return;
    const result = await deps.tracker.compute(state);
    deps.logger.info({ segmentId, ...result }, 'segment membership computed');
  };
}
