/** Projection of tracked events into the `events` view (idempotent: one document per event id). */
import type { ContactValue } from '@stamp/contracts';
import type { RecordedEvent, ViewCollection, ViewDocument, ViewStore } from '@stamp/platform';

import type { EventTracked } from './events.ts';

/** Name of the tracked events view. */
export const EVENTS_VIEW = 'events';

/** A document of the `events` view (`_id` = event id; `createdAt` ISO 8601). */
export interface TrackedEventView extends ViewDocument {
  projectId: string;
  contactId: string;
  name: string;
  data: Record<string, ContactValue>;
  createdAt: string;
}

/** The events view collection. */
export const eventsView = (views: ViewStore): ViewCollection<TrackedEventView> =>
  views.collection<TrackedEventView>(EVENTS_VIEW);

/** Creates the indexes of the events view. */
export async function createEventIndexes(views: ViewStore): Promise<void> {
  const events = eventsView(views);
  await events.createIndex({ projectId: 1 });
  await events.createIndex({ projectId: 1, contactId: 1 });
  await events.createIndex({ projectId: 1, name: 1 });
}

/** Applies one tracked-event stream event to the view; a replay changes nothing. */
export async function projectTrackedEvent(views: ViewStore, event: RecordedEvent): Promise<void> {
  if (event.type !== 'EventTracked') return;
  const { data } = event as unknown as EventTracked;
  const eventId = event.streamId.slice(event.streamId.indexOf('-') + 1);
  await eventsView(views).updateOne(
    { _id: eventId },
    {
      $setOnInsert: {
        projectId: event.metadata.projectId ?? '',
        contactId: data.contactId,
        name: data.name,
        data: data.data,
        createdAt: event.createdAt,
      },
    },
    { upsert: true },
  );
}
