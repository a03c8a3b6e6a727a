/**
 * Events of campaigns (stream `campaign-<campaignId>`) and of their fixed audiences (stream
 * `campaignAudience-<campaignId>`), and the state they fold into (spec parts 2 and 3,
 * "Campaign"; API reference, "Enums": campaign status).
 */
import type { AudienceType } from '@stamp/contracts';

/** Stream category of campaigns. */
export const CAMPAIGN_CATEGORY = 'campaign';
/** Stream category of the audiences fixed when campaigns start sending. */
export const CAMPAIGN_AUDIENCE_CATEGORY = 'campaignAudience';

/** Stream of a campaign. */
export const campaignStream = (campaignId: string): string => `${CAMPAIGN_CATEGORY}-${campaignId}`;
/** Stream of a campaign's fixed audience: one CampaignAudienceRecorded per batch, in order. */
export const audienceStream = (campaignId: string): string =>
  `${CAMPAIGN_AUDIENCE_CATEGORY}-${campaignId}`;

/** Campaign status (API reference, "Enums"). */
export type CampaignStatus = 'DRAFT' | 'SCHEDULED' | 'SENDING' | 'SENT' | 'CANCELLED';

/** The editable fields of a campaign (spec part 2), as stored. */
export interface CampaignFields {
  name: string;
  description: string | null;
  subject: string;
  /** HTML body (Liquid). */
  body: string;
  from: string;
  fromName: string | null;
  replyTo: string | null;
  audienceType: AudienceType;
  /** Segment of a SEGMENT audience, else null. */
  segmentId: string | null;
  /** Filter of a FILTERED audience (API reference, "Filter language"), else null. */
  audienceFilter: unknown;
}

/** A campaign event. */
export type CampaignEvent =
  | {
      type: 'CampaignCreated';
      data: CampaignFields & { campaignId: string; projectId: string; createdAt: string };
    }
  | { type: 'CampaignUpdated'; data: CampaignFields & { updatedAt: string } }
  | { type: 'CampaignDeleted'; data: { deletedAt: string } }
  /** A send at `scheduledFor`; timer `timerId` appends CampaignSendDue then. */
  | { type: 'CampaignScheduled'; data: { scheduledFor: string; timerId: string } }
  /** Appended by the timer of a schedule (event id = timer id). */
  | { type: 'CampaignSendDue'; data: { timerId: string } }
  | { type: 'CampaignSendingStarted'; data: { startedAt: string } }
  /** The audience was recorded: `recipients` contacts in `batches` batches. */
  | { type: 'CampaignAudienceFixed'; data: { recipients: number; batches: number } }
  /** Batch `batch` was handed to delivery. */
  | {
      type: 'CampaignBatchQueued';
      data: { batch: number; queued: number; existing: number; skipped: number };
    }
  | { type: 'CampaignCancelled'; data: { cancelledAt: string; reason: string | null } }
  | { type: 'CampaignSent'; data: { sentAt: string; recipients: number } };

/** The event of an audience stream: the contact ids of batch `batch`, in increasing order. */
export interface CampaignAudienceRecorded {
  type: 'CampaignAudienceRecorded';
  data: { batch: number; contactIds: string[] };
}

/** Event types of campaign streams. */
export const CAMPAIGN_EVENT_TYPES: ReadonlySet<string> = new Set<CampaignEvent['type']>([
  'CampaignCreated',
  'CampaignUpdated',
  'CampaignDeleted',
  'CampaignScheduled',
  'CampaignSendDue',
  'CampaignSendingStarted',
  'CampaignAudienceFixed',
  'CampaignBatchQueued',
  'CampaignCancelled',
  'CampaignSent',
]);

/** A campaign that exists (or existed). */
export interface KnownCampaign {
  exists: true;
  deleted: boolean;
  id: string;
  projectId: string;
  status: CampaignStatus;
  fields: CampaignFields;
  createdAt: string;
  updatedAt: string;
  scheduledFor: string | null;
  /** Timer of the current schedule. */
  timerId: string | null;
  startedAt: string | null;
  /** Size of the fixed audience; null until it is fixed. */
  recipients: number | null;
  batches: number | null;
  /** Batches handed to delivery so far. */
  batchesQueued: number;
  sentAt: string | null;
  cancelledAt: string | null;
}

/** State of a campaign stream. */
export type CampaignState = { exists: false } | KnownCampaign;

/** State before the first event. */
export const initialCampaign = (): CampaignState => ({ exists: false });

/** Applies one campaign event. Pure. */
export function evolve(state: CampaignState, event: CampaignEvent): CampaignState {
  if (event.type === 'CampaignCreated') {
    const { campaignId, projectId, createdAt, ...fields } = event.data;
    return {
      exists: true,
      deleted: false,
      id: campaignId,
      projectId,
      status: 'DRAFT',
      fields,
      createdAt,
      updatedAt: createdAt,
      scheduledFor: null,
      timerId: null,
      startedAt: null,
      recipients: null,
      batches: null,
      batchesQueued: 0,
      sentAt: null,
      cancelledAt: null,
    };
  }
  if (!state.exists) return state;
  switch (event.type) {
    case 'CampaignUpdated': {
      const { updatedAt, ...fields } = event.data;
      return { ...state, fields, updatedAt };
    }
    case 'CampaignDeleted':
      return { ...state, deleted: true };
    case 'CampaignScheduled':
      return {
        ...state,
        status: 'SCHEDULED',
        scheduledFor: event.data.scheduledFor,
        timerId: event.data.timerId,
      };
    case 'CampaignSendDue':
      return state;
    case 'CampaignSendingStarted':
      return { ...state, status: 'SENDING', timerId: null, startedAt: event.data.startedAt };
    case 'CampaignAudienceFixed':
      return { ...state, recipients: event.data.recipients, batches: event.data.batches };
    case 'CampaignBatchQueued':
      return { ...state, batchesQueued: event.data.batch + 1 };
    case 'CampaignCancelled':
      return { ...state, status: 'CANCELLED', timerId: null, cancelledAt: event.data.cancelledAt };
    case 'CampaignSent':
      return { ...state, status: 'SENT', sentAt: event.data.sentAt };
  }
}
