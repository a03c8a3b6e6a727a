/**
 * Projection of segment streams into the `segments` view (consumer group `segments-view`, topic
 * `segment`). Idempotent: every write is guarded by the stream revision the document reflects,
 * so a replayed or duplicated event changes nothing.
 */
import {
  applyAtRevision,
  type EventHandler,
  type RecordedEvent,
  type Update,
  type ViewStore,
} from '@stamp/platform';

import { SEGMENT_EVENT_TYPES, type SegmentEvent } from './events.ts';
import { segmentsView } from './views.ts';

/** Consumer group of the projection. */
export const SEGMENTS_VIEW_GROUP = 'segments-view';

function updateOf(event: SegmentEvent): Update {
  switch (event.type) {
    case 'SegmentCreated': {
      const { data } = event;
      return {
        $set: {
          projectId: data.projectId,
          name: data.name,
          description: data.description,
          type: data.segmentType,
          condition: data.condition,
          trackMembership: data.trackMembership,
          memberCount: data.segmentType === 'STATIC' ? 0 : null,
          countedAt: null,
          createdAt: data.createdAt,
          updatedAt: data.createdAt,
        },
      };
    }
    case 'SegmentUpdated':
      return { $set: { ...event.data } };
    case 'SegmentDeleted':
      return { $set: { deletedAt: event.data.deletedAt, condition: null } };
    case 'SegmentMembersAdded':
      return { $inc: { memberCount: event.data.contactIds.length } };
    case 'SegmentMembersRemoved':
      return { $inc: { memberCount: -event.data.contactIds.length } };
    case 'SegmentCounted':
      return { $set: { memberCount: event.data.memberCount, countedAt: event.data.countedAt } };
  }
}

/** The projection's handler: one guarded write per event. */
export function segmentsProjection(views: ViewStore): EventHandler {
  const collection = segmentsView(views);
  return async (event: RecordedEvent) => {
    if (!SEGMENT_EVENT_TYPES.has(event.type)) return;
    const typed = { type: event.type, data: event.data } as SegmentEvent;
    const id = event.streamId.slice(event.streamId.indexOf('-') + 1);
    await applyAtRevision(
      collection,
      id,
      event.revision,
      updateOf(typed),
      typed.type === 'SegmentCreated',
    );
  };
}
