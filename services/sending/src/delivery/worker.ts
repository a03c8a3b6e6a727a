import type { DomainsApi, TrackingMode } from '@stamp/contracts';
import {
  DeliveryError,
  type DeliveryReceipt,
  type EventStore,
  type Logger,
  type Mailer,
  type OutgoingMessage,
  type RecordedEvent,
  type Secrets,
  WrongExpectedRevisionError,
} from '@stamp/platform';

import type { RetryPolicy } from '../deps.ts';
import { verpAddress } from '../inbound/verp.ts';
import type { SuppressionReason } from '../suppressions/events.ts';
import { instrumentHtml, isTracked, type TrackingLinks } from '../tracking/links.ts';
import {
  decideFailure,
  type EmailEvent,
  evolveEmail,
  initialEmailState,
  type EmailQueuedData,
} from './events.ts';

/** What the delivery worker needs. */
export interface DeliveryDeps {
  store: EventStore;
  domains: DomainsApi;
  logger: Logger;
  relay?: Mailer;
  outbox: Mailer;
  retry: RetryPolicy;
  /**
   * Why `email` is on `projectId`'s suppression list, or null when it is not (API reference,
   * "Suppressions"): such an email is never handed to SMTP.
   */
  suppressionOf(projectId: string, email: string): Promise<SuppressionReason | null>;
  /** Signs the VERP return paths of emails from verified domains. */
  secrets: Secrets;
  /**
   * Open and click tracking: the mode of a project (its setting, else the installation's), and
   * where the links point and what signs them.
   */
  tracking: { modeOf(projectId: string): Promise<TrackingMode>; links: TrackingLinks };
  /**
   * Deliveries the receiving side accepted whose EmailSent could not be recorded yet, by email id
   * (kept by the worker across retries of the same event): they are recorded, never sent again.
   */
  accepted: Map<string, DeliveryReceipt & { transport: 'smtp' | 'outbox' }>;
}

/** The message of `queued`, its HTML with the open pixel and click links when it is tracked. */
function outgoing(
  queued: EmailQueuedData,
  projectId: string,
  tracking: { mode: TrackingMode; links: TrackingLinks },
): OutgoingMessage {
  const marketing = queued.marketing ?? queued.campaignId !== undefined;
  const html = isTracked(tracking.mode, marketing)
    ? instrumentHtml(queued.html, queued.emailId, tracking.links)
    : queued.html;
  return {
    emailId: queued.emailId,
    projectId,
    from: {
      address: queued.from.email,
      ...(queued.from.name === undefined ? {} : { name: queued.from.name }),
    },
    to: {
      address: queued.to.email,
      ...(queued.to.name === undefined ? {} : { name: queued.to.name }),
    },
    ...(queued.replyTo === undefined ? {} : { replyTo: queued.replyTo }),
    subject: queued.subject,
    html,
    headers: queued.headers,
    attachments: queued.attachments,
    // Campaign mail yields to every other email in the mailer's queues.
    bulk: queued.campaignId !== undefined,
  };
}

/**
 * Delivery lanes: campaign emails (with a `campaignId`) are delivered by their own consumer
 * group, so transactional email never waits behind a campaign's backlog.
 */
export type DeliveryLane = 'transactional' | 'campaign';

/**
 * Handles EmailQueued and EmailRetryDue of the emails of `lane` (architecture brief,
 * "Delivery"): acts only when the
 * triggering event is still the last of its stream (no outcome recorded after it), so an email id
 * is never sent again after its 250 was recorded; picks the outbox (sandbox or no relay) or the
 * relay, adds open and click tracking when the mode says so, DKIM-signs with the verified
 * sender domain's key and sends from the email's VERP address on its return path, and appends EmailSent, EmailDeferred (transient failure, exponential
 * backoff), EmailBounced (a permanent SMTP reply: a hard bounce) or EmailFailed with the stream's
 * expected revision. An address on the suppression list is not sent to: EmailSuppressed.
 */
export async function handleDelivery(
  deps: DeliveryDeps,
  event: RecordedEvent,
  lane: DeliveryLane = 'transactional',
): Promise<void> {
  if (event.type !== 'EmailQueued' && event.type !== 'EmailRetryDue') return;
  const laneOf = (data: EmailQueuedData): DeliveryLane =>
    data.campaignId === undefined ? 'transactional' : 'campaign';
  if (event.type === 'EmailQueued' && laneOf(event.data as EmailQueuedData) !== lane) return;
  // Acts only while the event is the last of its stream; an email's first event is all its
  // history, so its stream is read only for a retry.
  if ((await deps.store.readStream(event.streamId, event.revision + 1, 1)).length > 0) return;
  const events =
    event.revision === 0
      ? [event]
      : await deps.store.readStream(event.streamId, 0, event.revision + 1);
  // The recipient was deleted and its data erased: nothing to deliver.
  if (events.some((recorded) => recorded.erased === true)) return;
  let state = initialEmailState();
  for (const recorded of events) {
    state = evolveEmail(state, { type: recorded.type, data: recorded.data } as EmailEvent);
  }
  const queued = state.queued;
  if (queued === null || state.done || laneOf(queued) !== lane) return;
  const projectId = event.metadata.projectId ?? '';
  const mode = await deps.tracking.modeOf(projectId);
  const message = outgoing(queued, projectId, { mode, links: deps.tracking.links });
  const domain = await deps.domains.senderDomain(projectId, queued.from.email);
  if (domain?.verified === true) {
    message.dkim = domain.dkim;
    // Bounces and complaints come back to an address that names the email.
    const returnPath = verpAddress(deps.secrets, queued.emailId, domain.returnPath);
    if (returnPath !== null) message.envelopeFrom = returnPath;
  }
  const useOutbox = queued.sandbox || deps.relay === undefined;
  const mailer = useOutbox ? deps.outbox : (deps.relay ?? deps.outbox);

  const record = async (outcome: EmailEvent): Promise<void> => {
    try {
      await deps.store.append([
        {
          streamId: event.streamId,
          expectedRevision: event.revision,
          events: [
            {
              type: outcome.type,
              data: outcome.data,
              metadata: {
                projectId,
                correlationId: event.metadata.correlationId,
                causationId: event.id,
                subjectId: queued.contactId,
              },
            },
          ],
        },
      ]);
    } catch (error) {
      // Another worker recorded an outcome first; nothing more to do.
      if (!(error instanceof WrongExpectedRevisionError)) throw error;
    }
  };

  const sent = (receipt: DeliveryReceipt & { transport: 'smtp' | 'outbox' }): EmailEvent => ({
    type: 'EmailSent',
    data: {
      messageId: receipt.messageId,
      response: receipt.response,
      transport: receipt.transport,
      sentAt: new Date().toISOString(),
    },
  });
  const unrecorded = deps.accepted.get(queued.emailId);
  if (unrecorded === undefined) {
    const reason = await deps.suppressionOf(projectId, queued.to.email);
    if (reason !== null) {
      await record({
        type: 'EmailSuppressed',
        data: { reason, suppressedAt: new Date().toISOString() },
      });
      return;
    }
  }
  if (unrecorded !== undefined) {
    // Accepted earlier, but recording it failed: record it now, never send it again.
    await record(sent(unrecorded));
    deps.accepted.delete(queued.emailId);
    return;
  }

  try {
    // The outcome is recorded inside the mailer's commit point (see Mailer.send).
    await mailer.send(message, async (receipt) => {
      const accepted = {
        ...receipt,
        transport: useOutbox ? ('outbox' as const) : ('smtp' as const),
      };
      deps.accepted.set(queued.emailId, accepted);
      await record(sent(accepted));
      deps.accepted.delete(queued.emailId);
    });
  } catch (error) {
    // A failure to record an accepted delivery is the store's, not the relay's: the consumer
    // retries the event, which then only records the delivery.
    if (deps.accepted.has(queued.emailId)) throw error;
    const failure =
      error instanceof DeliveryError
        ? { message: error.message, transient: error.transient, responseCode: error.responseCode }
        : { message: error instanceof Error ? error.message : String(error), transient: true };
    const outcome = decideFailure(state, failure, deps.retry, new Date());
    deps.logger.warn(
      { emailId: queued.emailId, outcome: outcome.type, error: failure.message },
      'delivery attempt failed',
    );
    await record(outcome);
  }
}
