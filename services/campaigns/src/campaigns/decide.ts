/**
 * Pure deciders of campaigns: command + current state → events, throwing ApiError for rule
 * violations (spec part 3 "Campaign": DRAFT → SCHEDULED → SENDING → SENT, and CANCELLED).
 */
import { type ApiError, conflict, notFound } from '@stamp/http-kit';

import type { CampaignEvent, CampaignFields, CampaignState, KnownCampaign } from './events.ts';

const campaignNotFound = (): ApiError => notFound('CAMPAIGN_NOT_FOUND', 'Campaign not found');

/**
 * The campaign of `projectId` in `state`.
 * @throws ApiError 404 CAMPAIGN_NOT_FOUND when it does not exist, was deleted, or belongs to
 *   another project.
 */
export function requireCampaign(state: CampaignState, projectId: string): KnownCampaign {
  if (!state.exists || state.deleted || state.projectId !== projectId) throw campaignNotFound();
  return state;
}

/** Creates a campaign in DRAFT. */
export function decideCreate(
  command: { campaignId: string; projectId: string; fields: CampaignFields },
  now: Date,
): CampaignEvent[] {
  return [
    {
      type: 'CampaignCreated',
      data: {
        campaignId: command.campaignId,
        projectId: command.projectId,
        ...command.fields,
        createdAt: now.toISOString(),
      },
    },
  ];
}

/**
 * Replaces the fields of a DRAFT or SCHEDULED campaign (a schedule is kept); nothing when they
 * are the same.
 * @throws ApiError 404 CAMPAIGN_NOT_FOUND; 409 CONFLICT naming the state otherwise.
 */
export function decideUpdate(
  state: CampaignState,
  projectId: string,
  fields: CampaignFields,
  now: Date,
): CampaignEvent[] {
  const campaign = requireCampaign(state, projectId);
  if (campaign.status !== 'DRAFT' && campaign.status !== 'SCHEDULED') {
    throw conflict(
      `The campaign is ${campaign.status}: only a DRAFT or SCHEDULED campaign can be edited`,
    );
  }
  if (JSON.stringify(fields) === JSON.stringify(campaign.fields)) return [];
  return [{ type: 'CampaignUpdated', data: { ...fields, updatedAt: now.toISOString() } }];
}

/**
 * Deletes a campaign that is not SCHEDULED or SENDING (spec part 3: it has active executions).
 * @throws ApiError 404 CAMPAIGN_NOT_FOUND; 409 CONFLICT naming the state.
 */
export function decideDelete(state: CampaignState, projectId: string, now: Date): CampaignEvent[] {
  const campaign = requireCampaign(state, projectId);
  if (campaign.status === 'SCHEDULED' || campaign.status === 'SENDING') {
    throw conflict(`The campaign is ${campaign.status}: cancel it before deleting it`);
  }
  return [{ type: 'CampaignDeleted', data: { deletedAt: now.toISOString() } }];
}

/**
 * Sends a DRAFT or SCHEDULED campaign: at `scheduledFor` when it is later than `now` (a new
 * schedule replaces the current one, with timer `timerId`), else now.
 * @throws ApiError 404 CAMPAIGN_NOT_FOUND; 409 CONFLICT naming the state (SENDING, SENT,
 *   CANCELLED).
 */
export function decideSend(
  state: CampaignState,
  projectId: string,
  command: { scheduledFor: Date | null; timerId: string },
  now: Date,
): CampaignEvent[] {
  const campaign = requireCampaign(state, projectId);
  if (campaign.status !== 'DRAFT' && campaign.status !== 'SCHEDULED') {
    throw conflict(
      `The campaign is ${campaign.status}: only a DRAFT or SCHEDULED campaign is sent`,
    );
  }
  const { scheduledFor } = command;
  if (scheduledFor !== null && scheduledFor.getTime() > now.getTime()) {
    return [
      {
        type: 'CampaignScheduled',
        data: { scheduledFor: scheduledFor.toISOString(), timerId: command.timerId },
      },
    ];
  }
  return [{ type: 'CampaignSendingStarted', data: { startedAt: now.toISOString() } }];
}

/**
 * Cancels a SCHEDULED or SENDING campaign (spec part 3); `reason` says why when the platform
 * cancels it (its audience could no longer be read), null when a user does.
 * @throws ApiError 404 CAMPAIGN_NOT_FOUND; 409 CONFLICT naming any other state.
 */
export function decideCancel(
  state: CampaignState,
  projectId: string,
  now: Date,
  reason: string | null = null,
): CampaignEvent[] {
  const campaign = requireCampaign(state, projectId);
  if (campaign.status !== 'SCHEDULED' && campaign.status !== 'SENDING') {
    throw conflict(
      `The campaign is ${campaign.status}: only a SCHEDULED or SENDING campaign can be cancelled`,
    );
  }
  return [{ type: 'CampaignCancelled', data: { cancelledAt: now.toISOString(), reason } }];
}

/**
 * The timer of a schedule fired: the campaign starts sending when it is still SCHEDULED by that
 * timer (a replaced or cancelled schedule's timer changes nothing).
 */
export function decideDue(state: CampaignState, timerId: string, now: Date): CampaignEvent[] {
  if (!state.exists || state.deleted || state.status !== 'SCHEDULED') return [];
  if (state.timerId !== timerId) return [];
  return [{ type: 'CampaignSendingStarted', data: { startedAt: now.toISOString() } }];
}

/** What a SENDING campaign needs next. */
export type SendingStep =
  | { kind: 'none' }
  /** Record its audience (it is not fixed yet). */
  | { kind: 'fixAudience' }
  /** Hand batch `batch` to delivery. */
  | { kind: 'queueBatch'; batch: number }
  /** Every batch was handed to delivery: it is sent. */
  | { kind: 'finish' };

/** The next step of a campaign's sending; `none` unless it is SENDING. Pure. */
export function nextSendingStep(state: CampaignState): SendingStep {
  if (!state.exists || state.deleted || state.status !== 'SENDING') return { kind: 'none' };
  if (state.batches === null) return { kind: 'fixAudience' };
  if (state.batchesQueued < state.batches)
    return { kind: 'queueBatch', batch: state.batchesQueued };
  return { kind: 'finish' };
}
