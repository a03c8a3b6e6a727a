/**
 * Projection of campaign streams (consumer group `campaigns-view`, topic `campaign`) into the
 * `campaigns` view, and of their schedules into the `campaignTimers` view that the campaigns'
 * TimerScheduler fires. Idempotent: every write to a campaign document is guarded by the stream
 * revision it reflects; timers are written only when that document moved.
 */
import { entityIdOf } from '@stamp/contracts';
import {
  applyAtRevision,
  type EventHandler,
  type RecordedEvent,
  type TimerDocument,
  type Update,
  type ViewStore,
} from '@stamp/platform';

import { CAMPAIGN_EVENT_TYPES, type CampaignEvent } from './events.ts';
import { CAMPAIGN_TIMERS_VIEW, campaignsView } from './views.ts';

/** Consumer group of the projection. */
export const CAMPAIGNS_VIEW_GROUP = 'campaigns-view';

function updateOf(event: CampaignEvent): Update {
  switch (event.type) {
    case 'CampaignCreated': {
      const { data } = event;
      return {
        $set: {
          projectId: data.projectId,
          name: data.name,
          description: data.description,
          subject: data.subject,
          body: data.body,
          from: data.from,
          fromName: data.fromName,
          replyTo: data.replyTo,
          audienceType: data.audienceType,
          segmentId: data.segmentId,
          audienceFilter: data.audienceFilter,
          templateId: null,
          status: 'DRAFT',
          scheduledAt: null,
          startedAt: null,
          sentAt: null,
          cancelledAt: null,
          cancelReason: null,
          recipients: null,
          batchesQueued: 0,
          createdAt: data.createdAt,
          updatedAt: data.createdAt,
        },
      };
    }
    case 'CampaignUpdated':
      return { $set: { ...event.data } };
    case 'CampaignDeleted':
      return { $set: { deletedAt: event.data.deletedAt } };
    case 'CampaignScheduled':
      return { $set: { status: 'SCHEDULED', scheduledAt: event.data.scheduledFor } };
    case 'CampaignSendDue':
      return { $set: {} };
    case 'CampaignSendingStarted':
      return { $set: { status: 'SENDING', startedAt: event.data.startedAt } };
    case 'CampaignAudienceFixed':
      return { $set: { recipients: event.data.recipients } };
    case 'CampaignBatchQueued':
      return { $set: { batchesQueued: event.data.batch + 1 } };
    case 'CampaignCancelled':
      return {
        $set: {
          status: 'CANCELLED',
          cancelledAt: event.data.cancelledAt,
          cancelReason: event.data.reason,
        },
      };
    case 'CampaignSent':
      return { $set: { status: 'SENT', sentAt: event.data.sentAt } };
  }
}

/** The projection's handler: one guarded write per event, and the timer of a schedule. */
export function campaignsProjection(views: ViewStore): EventHandler {
  const collection = campaignsView(views);
  const timers = views.collection<TimerDocument>(CAMPAIGN_TIMERS_VIEW);
  return async (event: RecordedEvent) => {
    if (!CAMPAIGN_EVENT_TYPES.has(event.type)) return;
    const typed = { type: event.type, data: event.data } as CampaignEvent;
    const id = entityIdOf(event.streamId);
    const moved = await applyAtRevision(
      collection,
      id,
      event.revision,
      updateOf(typed),
      typed.type === 'CampaignCreated',
    );
    if (!moved) return;
    switch (typed.type) {
      case 'CampaignScheduled':
        await timers.deleteMany({ campaignId: id });
        await timers.replaceOne(
          { _id: typed.data.timerId },
          {
            _id: typed.data.timerId,
            campaignId: id,
            dueAt: Date.parse(typed.data.scheduledFor),
            streamId: event.streamId,
            event: {
              type: 'CampaignSendDue',
              data: { timerId: typed.data.timerId },
              metadata: { projectId: event.metadata.projectId ?? '' },
            },
          },
          { upsert: true },
        );
        return;
      case 'CampaignSendingStarted':
      case 'CampaignCancelled':
      case 'CampaignDeleted':
        await timers.deleteMany({ campaignId: id });
        return;
      default:
        return;
    }
  };
}
