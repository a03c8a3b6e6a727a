/** Decider of tracked-event names (spec part 4, DELETE /events/:eventName). */
import { notFound } from '@stamp/http-kit';

import type { TrackedEventNameState, TrackedEventsDeleted } from './events.ts';

/** Command: delete the events named `name` up to log position `upToPosition`. */
export interface DeleteTrackedEvents {
  type: 'DeleteTrackedEvents';
  name: string;
  /** Log position up to which (inclusive) events of the name are deleted; ≥ 1. */
  upToPosition: number;
  /** How many events of the name the project holds up to that position (read from the view). */
  found: number;
}

/**
 * Decides a deletion of events by name. The recorded bound never moves back: a deletion that
 * reaches less far than an earlier one keeps the earlier bound.
 * @throws ApiError 404 RESOURCE_NOT_FOUND when the project has no event of that name.
 */
export function decideDeleteTrackedEvents(
  state: TrackedEventNameState,
  command: DeleteTrackedEvents,
): TrackedEventsDeleted[] {
  if (command.found <= 0) {
    throw notFound('RESOURCE_NOT_FOUND', `No event named "${command.name}" was found`);
  }
  return [
    {
      type: 'TrackedEventsDeleted',
      data: {
        name: command.name,
        upToPosition: Math.max(state.deletedUpTo, command.upToPosition),
      },
    },
  ];
}
