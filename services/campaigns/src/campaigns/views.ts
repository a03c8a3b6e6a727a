/**
 * The `campaigns` view (one document per campaign, read also by activity and templates through
 * the contracts) and the resource the routes answer.
 */
import { CAMPAIGNS_VIEW } from '@stamp/contracts';
import type { ViewCollection, ViewDocument, ViewStore } from '@stamp/platform';

import type { CampaignFields, CampaignStatus } from './events.ts';

/** Name of the campaigns view. */
export { CAMPAIGNS_VIEW };

/** Name of the view of pending schedule timers (a `TimerDocument` collection). */
export const CAMPAIGN_TIMERS_VIEW = 'campaignTimers';

/** A document of the `campaigns` view (`_id` = campaign id; dates ISO 8601). */
export interface CampaignView extends ViewDocument, CampaignFields {
  projectId: string;
  status: CampaignStatus;
  /** Time of the schedule while SCHEDULED (and after, for the record). */
  scheduledAt: string | null;
  startedAt: string | null;
  sentAt: string | null;
  cancelledAt: string | null;
  /** Why the platform cancelled it, when it did. */
  cancelReason: string | null;
  /** Size of the audience fixed when sending started; null before. */
  recipients: number | null;
  batchesQueued: number;
  createdAt: string;
  updatedAt: string;
  /** Set once the campaign was deleted (the document stays). */
  deletedAt?: string;
  revision: number;
}

/** The filter of campaigns that were not deleted. */
export const LIVE = { deletedAt: { $exists: false } } as const;

/** The campaigns view collection. */
export const campaignsView = (views: ViewStore): ViewCollection<CampaignView> =>
  views.collection<CampaignView>(CAMPAIGNS_VIEW);

/**
 * A campaign as the routes answer it (spec part 2 "Campaign"): the spec's fields, `type` (the
 * audience type, as the spec's sample shows), and `audienceCondition`, the name Plunk's API gives
 * `audienceFilter`.
 */
export interface CampaignResource extends CampaignFields {
  id: string;
  projectId: string;
  type: CampaignFields['audienceType'];
  audienceCondition: unknown;
  status: CampaignStatus;
  scheduledAt: string | null;
  sentAt: string | null;
  /** When it was cancelled, and why when the platform cancelled it (a billing cap reached, …). */
  cancelledAt: string | null;
  cancelReason: string | null;
  recipients: number | null;
  createdAt: string;
  updatedAt: string;
}

/** The resource of a view document. */
export const toResource = (document: CampaignView): CampaignResource => ({
  id: document._id,
  projectId: document.projectId,
  name: document.name,
  description: document.description,
  subject: document.subject,
  body: document.body,
  from: document.from,
  fromName: document.fromName,
  replyTo: document.replyTo,
  audienceType: document.audienceType,
  type: document.audienceType,
  segmentId: document.segmentId,
  audienceFilter: document.audienceFilter,
  audienceCondition: document.audienceFilter,
  status: document.status,
  scheduledAt: document.scheduledAt,
  sentAt: document.sentAt,
  cancelledAt: document.cancelledAt,
  cancelReason: document.cancelReason,
  recipients: document.recipients,
  createdAt: document.createdAt,
  updatedAt: document.updatedAt,
});
