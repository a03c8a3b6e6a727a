/**
 * The sending of campaigns (spec part 4 "Campaigns"), a process manager on the campaign streams
 * (consumer group `campaigns-dispatch`, topic `campaign`): each of its steps appends the event
 * that triggers the next one, so a crash resumes at the step after the last recorded one.
 *
 * 1. CampaignSendDue (a schedule's timer) → CampaignSendingStarted.
 * 2. CampaignSendingStarted → the audience is fixed: its contact ids, read in pages, are
 *    appended to `campaignAudience-<id>` one batch per event, then CampaignAudienceFixed.
 * 3. CampaignAudienceFixed / CampaignBatchQueued → the next batch is handed to the sending
 *    service (one email per recipient, ids derived from campaign and contact, so a batch handed
 *    over twice queues nothing twice) under the project's throttle, then CampaignBatchQueued;
 *    after the last one, CampaignSent.
 *
 * A step acts only when its triggering event is still the last of the stream: a cancel (or any
 * later event) stops the sending within one batch. Campaign mail waits while more than
 * `maxInFlight` of the campaign's emails wait for their first delivery attempt, so transactional
 * mail queued meanwhile is never behind more than that.
 */
import type { CampaignEmailsApi, EmailViewDocument, SegmentsApi } from '@stamp/contracts';
import { EMAILS_VIEW, entityIdOf } from '@stamp/contracts';
import { ApiError } from '@stamp/http-kit';
import {
  decisionAppend,
  type EventStore,
  type Logger,
  type RecordedEvent,
  type ViewDocument,
  type ViewStore,
  WrongExpectedRevisionError,
} from '@stamp/platform';
import { RateLimiter } from 'limiter';

import { audienceOf, contentOf } from './api.ts';
import type { CampaignCommands } from './commands.ts';
import { decideCancel, decideDue, nextSendingStep } from './decide.ts';
import {
  type CampaignAudienceRecorded,
  type CampaignEvent,
  audienceStream,
  campaignStream,
  type KnownCampaign,
} from './events.ts';

/** Consumer group of the dispatcher. */
export const CAMPAIGNS_DISPATCH_GROUP = 'campaigns-dispatch';

/** Events after which the dispatcher has a step to take. */
const TRIGGERS: ReadonlySet<string> = new Set([
  'CampaignSendDue',
  'CampaignSendingStarted',
  'CampaignAudienceFixed',
  'CampaignBatchQueued',
]);

/** Throttle of campaign sending (see `STAMP_CAMPAIGN_RATE_PER_SECOND`). */
export interface CampaignThrottle {
  /** Campaign emails handed to delivery per second and project; default 1000. */
  ratePerSecond: number;
  /** Recipients per batch; default 500 (at most the rate). */
  batchSize: number;
  /** Campaign emails awaiting their first delivery attempt before the next batch waits; 1000. */
  maxInFlight: number;
  /** How often the in-flight count is looked at while waiting, ms; default 50. */
  pollMs: number;
}

/** Default throttle. */
export const DEFAULT_THROTTLE: CampaignThrottle = {
  ratePerSecond: 1000,
  batchSize: 500,
  maxInFlight: 1000,
  pollMs: 50,
};

/** What the dispatcher needs. */
export interface DispatchDeps {
  store: EventStore;
  views: ViewStore;
  logger: Logger;
  commands: CampaignCommands;
  segments: SegmentsApi;
  sending: CampaignEmailsApi;
  throttle: CampaignThrottle;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Builds the dispatcher's event handler. */
export function campaignDispatcher(deps: DispatchDeps): (event: RecordedEvent) => Promise<void> {
  const { store, commands, throttle } = deps;
  const batchSize = Math.max(1, Math.min(throttle.batchSize, throttle.ratePerSecond));
  const limiters = new Map<string, RateLimiter>();
  const emails = deps.views.collection<EmailViewDocument & ViewDocument>(EMAILS_VIEW);

  function limiterOf(projectId: string): RateLimiter {
    let limiter = limiters.get(projectId);
    if (limiter === undefined) {
      limiter = new RateLimiter({ tokensPerInterval: throttle.ratePerSecond, interval: 'second' });
      limiters.set(projectId, limiter);
    }
    return limiter;
  }

  /** Appends `events` after revision `after` of the campaign; false when the stream moved on. */
  async function appendAfter(
    campaign: KnownCampaign,
    after: number,
    events: CampaignEvent[],
    correlationId: string,
  ): Promise<boolean> {
    try {
      await store.append([
        decisionAppend(campaignStream(campaign.id), after, events, {
          projectId: campaign.projectId,
          correlationId,
        }),
      ]);
      return true;
    } catch (error) {
      if (error instanceof WrongExpectedRevisionError) return false;
      throw error;
    }
  }

  /** Step 2: records the audience in batches (resuming after the batches recorded before). */
  async function fixAudience(
    campaign: KnownCampaign,
    revision: number,
    correlationId: string,
  ): Promise<void> {
    const stream = audienceStream(campaign.id);
    const recorded = (await store.readStream(stream)) as unknown as CampaignAudienceRecorded[];
    let batch = recorded.length;
    let recipients = recorded.reduce((sum, event) => sum + event.data.contactIds.length, 0);
    let after = recorded[batch - 1]?.data.contactIds.at(-1) ?? null;
    const audience = audienceOf(campaign.fields);
    for (;;) {
      const { contactIds } = await deps.segments.audiencePage(
        campaign.projectId,
        audience,
        after,
        batchSize,
      );
      if (contactIds.length === 0) break;
      const event: CampaignAudienceRecorded = {
        type: 'CampaignAudienceRecorded',
        data: { batch, contactIds },
      };
      try {
        await store.append([
          {
            streamId: stream,
            expectedRevision: batch === 0 ? 'no_stream' : batch - 1,
            events: [
              { type: event.type, data: event.data, metadata: { projectId: campaign.projectId } },
            ],
          },
        ]);
      } catch (error) {
        // Another dispatcher records it: it also takes the next step.
        if (error instanceof WrongExpectedRevisionError) return;
        throw error;
      }
      batch += 1;
      recipients += contactIds.length;
      after = contactIds.at(-1) ?? after;
      if (contactIds.length < batchSize) break;
    }
    await appendAfter(
      campaign,
      revision,
      [{ type: 'CampaignAudienceFixed', data: { recipients, batches: batch } }],
      correlationId,
    );
  }

  /** Waits until the campaign's emails awaiting their first attempt are at most `maxInFlight`. */
  async function awaitDrain(campaignId: string): Promise<void> {
    const waiting = { campaignId, status: 'QUEUED', attempts: 0 };
    while ((await emails.countDocuments(waiting)) > throttle.maxInFlight) {
      await sleep(throttle.pollMs);
    }
  }

  /** Step 3: hands batch `batch` to delivery, then records it. */
  async function queueBatch(
    campaign: KnownCampaign,
    revision: number,
    batch: number,
    correlationId: string,
  ): Promise<void> {
    const [recorded] = (await store.readStream(
      audienceStream(campaign.id),
      batch,
      1,
    )) as unknown as CampaignAudienceRecorded[];
    const contactIds = recorded?.data.contactIds ?? [];
    await awaitDrain(campaign.id);
    if (contactIds.length > 0) await limiterOf(campaign.projectId).removeTokens(contactIds.length);
    // Cancelled while it waited: nothing more is handed over.
    if ((await commands.load(campaign.id)).revision !== revision) return;
    const result = await deps.sending.queueCampaignEmails({
      projectId: campaign.projectId,
      campaignId: campaign.id,
      correlationId,
      contactIds,
      content: contentOf(campaign.fields),
    });
    await appendAfter(
      campaign,
      revision,
      [{ type: 'CampaignBatchQueued', data: { batch, ...result } }],
      correlationId,
    );
  }

  return async (event) => {
    if (!TRIGGERS.has(event.type)) return;
    const campaignId = entityIdOf(event.streamId);
    const { state, revision } = await commands.load(campaignId);
    // A later event drives the campaign (or ended it).
    if (revision !== event.revision || !state.exists) return;
    const correlationId = event.metadata.correlationId ?? event.id;
    if (event.type === 'CampaignSendDue') {
      const { timerId } = event.data as { timerId: string };
      const due = decideDue(state, timerId, new Date());
      if (due.length > 0) await appendAfter(state, revision, due, correlationId);
      return;
    }
    const step = nextSendingStep(state);
    try {
      switch (step.kind) {
        case 'none':
          return;
        case 'fixAudience':
          await fixAudience(state, revision, correlationId);
          return;
        case 'queueBatch':
          await queueBatch(state, revision, step.batch, correlationId);
          return;
        case 'finish':
          await appendAfter(
            state,
            revision,
            [
              {
                type: 'CampaignSent',
                data: { sentAt: new Date().toISOString(), recipients: state.recipients ?? 0 },
              },
            ],
            correlationId,
          );
          return;
      }
    } catch (error) {
      // A refusal (the segment was deleted, the sender domain lost its verification) will not
      // pass on a retry: the campaign is cancelled with the reason. Anything else is retried.
      if (!(error instanceof ApiError) || error.status >= 500) throw error;
      deps.logger.warn({ campaignId, err: error }, 'campaign cancelled: its sending was refused');
      await appendAfter(
        state,
        revision,
        decideCancel(state, state.projectId, new Date(), error.message),
        correlationId,
      );
    }
  };
}
