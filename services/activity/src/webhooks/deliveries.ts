/**
 * Deliveries of events to webhook endpoints (API reference, "Webhook endpoints"): the
 * `webhookDeliveries` collection is both the queue of the delivery worker and each endpoint's
 * delivery log. The dispatch (consumer group `activity-webhooks`) turns each integration event
 * into one PENDING delivery per enabled endpoint of its project that wants its type. A delivery's
 * id is derived from the endpoint and the event, so a redelivered event adds nothing, and it is
 * the `webhook-id` of every attempt.
 */
import { CONTACT_STREAM_CATEGORY, entityIdOf } from '@stamp/contracts';
import {
  derivedId,
  isDuplicateKey,
  type RecordedEvent,
  streamCategory,
  type ViewDocument,
  type ViewStore,
} from '@stamp/platform';

import { WEBHOOK_ENDPOINTS, type WebhookEndpointDocument } from './endpoints.ts';
import { wants, webhookPayloadOf } from './payloads.ts';

/** View collection of the deliveries. */
export const WEBHOOK_DELIVERIES = 'webhookDeliveries';

/** Consumer group of the dispatch. */
export const WEBHOOK_DISPATCH_GROUP = 'activity-webhooks';

/** Status of a delivery. */
export type DeliveryStatus = 'PENDING' | 'SUCCEEDED' | 'FAILED';

/** One attempt of a delivery. */
export interface DeliveryAttempt {
  /** ISO 8601 start of the attempt. */
  attemptedAt: string;
  /** The endpoint's HTTP status, when it answered. */
  statusCode?: number;
  /** From the start of the attempt to the end of the answer (or the failure), ms. */
  latencyMs: number;
  /** Why it failed, when it did. */
  error?: string;
}

/** Most attempts kept in a delivery's log (the oldest are dropped first). */
export const ATTEMPT_LOG_SIZE = 20;

/** A document of `webhookDeliveries` (`_id`: the delivery id). */
export interface WebhookDeliveryDocument extends ViewDocument {
  projectId: string;
  endpointId: string;
  /** The integration event delivered. */
  eventId: string;
  /** Its webhook event type. */
  eventType: string;
  /** The JSON body posted: `{type, timestamp, data}`. */
  body: string;
  /** The contact whose personal data the body holds, or null. */
  subjectId: string | null;
  status: DeliveryStatus;
  /** Attempts made. */
  attempts: number;
  lastStatusCode: number | null;
  lastLatencyMs: number | null;
  lastError: string | null;
  /** When the next attempt is due (epoch ms), while PENDING; otherwise null. */
  nextAttemptAt: number | null;
  /** A retry asked for by hand: one attempt, FAILED if it fails. */
  manual: boolean;
  log: DeliveryAttempt[];
  /** ISO 8601 time the delivery was created. */
  createdAt: string;
}

/** The id of the delivery of event `eventId` to endpoint `endpointId`. */
export const deliveryId = (endpointId: string, eventId: string): string =>
  derivedId(`webhook-delivery:${endpointId}:${eventId}`);

/** The indexes of the worker's queue, of the delivery logs, of erasure and of their pruning. */
export async function createDeliveryIndexes(views: ViewStore): Promise<void> {
  const deliveries = views.collection(WEBHOOK_DELIVERIES);
  await deliveries.createIndex({ status: 1, nextAttemptAt: 1 });
  await deliveries.createIndex({ endpointId: 1, createdAt: -1 });
  await deliveries.createIndex({ subjectId: 1 });
  await deliveries.createIndex({ createdAt: 1 });
}

/**
 * Dispatches one integration event: on ContactDeleted, first forgets the deliveries that hold the
 * contact's personal data (their bodies and logs); then adds a PENDING delivery, due at `now`
 * (epoch ms), for each enabled endpoint of the event's project that wants its type and was
 * created before the event happened.
 * @returns how many deliveries were added.
 */
export async function dispatchWebhooks(
  views: ViewStore,
  event: RecordedEvent,
  now: number,
): Promise<number> {
  const deliveries = views.collection<WebhookDeliveryDocument>(WEBHOOK_DELIVERIES);
  const contactDeleted =
    event.type === 'ContactDeleted' && streamCategory(event.streamId) === CONTACT_STREAM_CATEGORY;
  if (contactDeleted) await deliveries.deleteMany({ subjectId: entityIdOf(event.streamId) });

  const payload = webhookPayloadOf(event);
  if (payload === null) return 0;
  const endpoints = await views
    .collection<WebhookEndpointDocument>(WEBHOOK_ENDPOINTS)
    .find({ projectId: payload.projectId, deleted: false, enabled: true });
  // An endpoint receives the events that happened since it was created, not the history a
  // consumer catching up (after an upgrade, say) is still reading.
  const targets = endpoints.filter(
    (endpoint) => wants(endpoint.eventTypes, payload.type) && event.createdAt >= endpoint.createdAt,
  );
  if (targets.length === 0) return 0;
  const body = JSON.stringify({
    type: payload.type,
    timestamp: event.createdAt,
    data: payload.data,
  });
  let added = 0;
  for (const endpoint of targets) {
    try {
      await deliveries.insertOne({
        _id: deliveryId(endpoint._id, event.id),
        projectId: payload.projectId,
        endpointId: endpoint._id,
        eventId: event.id,
        eventType: payload.type,
        body,
        // The deletion notice itself holds nothing personal: it outlives the erasure.
        subjectId: contactDeleted ? null : (payload.subjectId ?? null),
        status: 'PENDING',
        attempts: 0,
        lastStatusCode: null,
        lastLatencyMs: null,
        lastError: null,
        nextAttemptAt: now,
        manual: false,
        log: [],
        createdAt: new Date(now).toISOString(),
      });
      added += 1;
    } catch (error) {
      if (!isDuplicateKey(error)) throw error;
    }
  }
  return added;
}
