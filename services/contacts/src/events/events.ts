/**
 * Events of tracked-event names (spec part 4, DELETE /events/:eventName): stream
 * `trackedEventName-<projectId>.<sha256 of the name>`, one per event name of a project.
 */
import { createHash } from 'node:crypto';

/** Stream category of tracked-event names (its events reach the `trackedEventName` topic). */
export const TRACKED_EVENT_NAME_CATEGORY = 'trackedEventName';

/**
 * Every tracked event named `name` of the stream's project with a log position up to
 * `upToPosition` (inclusive) was deleted. Events of that name recorded later stay.
 */
export interface TrackedEventsDeleted {
  type: 'TrackedEventsDeleted';
  data: { name: string; upToPosition: number };
}

/** Any event of a name stream. */
export type TrackedEventNameEvent = TrackedEventsDeleted;

/** State of a name stream: the log position up to which its events were deleted (0 = never). */
export interface TrackedEventNameState {
  deletedUpTo: number;
}

/** State before the first event. */
export const initialNameState = (): TrackedEventNameState => ({ deletedUpTo: 0 });

/** Applies one name-stream event (unknown types are ignored). */
export function evolveName(
  state: TrackedEventNameState,
  event: TrackedEventNameEvent,
): TrackedEventNameState {
  switch (event.type) {
    case 'TrackedEventsDeleted':
      return { deletedUpTo: Math.max(state.deletedUpTo, event.data.upToPosition) };
    default:
      return state;
  }
}

/** Stream id of an event name of a project; the name is hashed (names hold any character). */
export function trackedEventNameStreamId(projectId: string, name: string): string {
  const hash = createHash('sha256').update(name).digest('hex');
  return `${TRACKED_EVENT_NAME_CATEGORY}-${projectId}.${hash}`;
}
