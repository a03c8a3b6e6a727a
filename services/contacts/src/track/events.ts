/** Events of tracked events (spec part 4, POST /v1/track): stream `trackedEvent-<eventId>`. */
import type { ContactValue } from '@stamp/contracts';

/** Stream category of tracked events. */
export const TRACKED_EVENT_CATEGORY = 'trackedEvent';

/** A named event was recorded for a contact; `data` is the event's data as sent (primitives). */
export interface EventTracked {
  type: 'EventTracked';
  data: {
    name: string;
    contactId: string;
    email: string;
    data: Record<string, ContactValue>;
  };
}

/** Stream id of a tracked event. */
export const trackedEventStreamId = (eventId: string): string =>
  `${TRACKED_EVENT_CATEGORY}-${eventId}`;
