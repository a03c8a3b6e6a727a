/**
 * The `webhookEndpoints` view and the endpoint commands (API reference, "Webhook endpoints").
 * The view holds every endpoint, deleted ones flagged (so that the revision guard holds), with
 * its secret still sealed.
 */
import { randomBytes } from 'node:crypto';

import { entityIdOf } from '@stamp/contracts';
import {
  applyAtRevision,
  type EventStore,
  newId,
  type RecordedEvent,
  type Secrets,
  streamCommands,
  type ViewDocument,
  type ViewStore,
} from '@stamp/platform';

import {
  decideDelete,
  decideDisable,
  decideUpdate,
  type WebhookEndpointChange,
  type WebhookEndpointEvent,
  webhookEndpointModel,
  type WebhookEndpointSettings,
} from './events.ts';

/** View collection of the endpoints. */
export const WEBHOOK_ENDPOINTS = 'webhookEndpoints';

/** Purpose of the sealing of endpoint secrets (see `Secrets.seal`). */
export const SECRET_PURPOSE = 'webhook-endpoint-secret';

/** A document of the `webhookEndpoints` view (`_id`: the endpoint id; dates ISO 8601). */
export interface WebhookEndpointDocument extends ViewDocument {
  projectId: string;
  url: string;
  eventTypes: string[];
  description: string | null;
  enabled: boolean;
  /** The Standard Webhooks key, sealed. */
  secret: string;
  /** Why it was disabled by the platform (days of failure), while it stays disabled. */
  disabledReason: string | null;
  deleted: boolean;
  createdAt: string;
  updatedAt: string;
  revision: number;
}

/** Projects endpoint events into the `webhookEndpoints` view (idempotent by stream revision). */
export async function projectWebhookEndpoint(
  views: ViewStore,
  event: RecordedEvent,
): Promise<void> {
  const collection = views.collection(WEBHOOK_ENDPOINTS);
  const id = entityIdOf(event.streamId);
  const typed = { type: event.type, data: event.data } as WebhookEndpointEvent;
  const at = event.createdAt;
  switch (typed.type) {
    case 'WebhookEndpointCreated': {
      const { projectId, url, eventTypes, description, enabled, secret } = typed.data;
      const document = {
        projectId,
        url,
        eventTypes,
        description: description ?? null,
        enabled,
        secret,
        disabledReason: null,
        deleted: false,
        createdAt: at,
        updatedAt: at,
      };
      await applyAtRevision(collection, id, event.revision, { $set: document }, true);
      return;
    }
    case 'WebhookEndpointUpdated': {
      const { description, ...rest } = typed.data;
      const set: Record<string, unknown> = { ...rest, updatedAt: at };
      if (description !== undefined) set.description = description === '' ? null : description;
      if (rest.enabled === true) set.disabledReason = null;
      await applyAtRevision(collection, id, event.revision, { $set: set }, false);
      return;
    }
    case 'WebhookEndpointDisabled': {
      const set = { enabled: false, disabledReason: typed.data.reason, updatedAt: at };
      await applyAtRevision(collection, id, event.revision, { $set: set }, false);
      return;
    }
    case 'WebhookEndpointDeleted':
      await applyAtRevision(collection, id, event.revision, { $set: { deleted: true } }, false);
      return;
  }
}

/** The indexes of the list and of the dispatch's look-up. */
export async function createWebhookEndpointIndexes(views: ViewStore): Promise<void> {
  await views.collection(WEBHOOK_ENDPOINTS).createIndex({ projectId: 1, deleted: 1, createdAt: 1 });
}

/** A new Standard Webhooks key: `whsec_` and 24 random bytes in base64. */
export const newEndpointSecret = (): string => `whsec_${randomBytes(24).toString('base64')}`;

/** Who asks for an endpoint change: the project, and the request that causes it. */
export interface EndpointContext {
  projectId: string;
  correlationId: string;
}

/**
 * The endpoint commands: each reads the endpoint's stream, decides and appends at the revision
 * read. Results carry the endpoint id and the log position of the append (0: none).
 */
export function webhookEndpointCommands(store: EventStore, secrets: Secrets) {
  const streams = streamCommands(store, webhookEndpointModel);
  return {
    /** Creates an endpoint with a new secret. */
    async create(context: EndpointContext, settings: WebhookEndpointSettings) {
      const id = newId();
      const secret = secrets.seal(SECRET_PURPOSE, newEndpointSecret());
      const result = await streams.execute(id, { ...context }, () => [
        {
          type: 'WebhookEndpointCreated',
          data: { projectId: context.projectId, ...settings, secret },
        },
      ]);
      return { id, position: result.position };
    },

    /**
     * Changes settings.
     * @throws ApiError 404 RESOURCE_NOT_FOUND when the endpoint is not the project's.
     */
    async update(context: EndpointContext, id: string, change: WebhookEndpointChange) {
      const result = await streams.execute(id, { ...context }, ({ state }) =>
        decideUpdate(state, context.projectId, change),
      );
      return { id, position: result.position };
    },

    /**
     * Deletes an endpoint.
     * @throws ApiError 404 RESOURCE_NOT_FOUND when the endpoint is not the project's.
     */
    async remove(context: EndpointContext, id: string) {
      const result = await streams.execute(id, { ...context }, ({ state }) =>
        decideDelete(state, context.projectId),
      );
      return { id, position: result.position };
    },

    /** Disables an endpoint whose deliveries failed since `failingSince` (ISO 8601). */
    async disable(context: EndpointContext, id: string, failingSince: string, reason: string) {
      const result = await streams.execute(id, { ...context }, ({ state }) =>
        decideDisable(state, failingSince, reason),
      );
      return { id, position: result.position };
    },
  };
}

/** The endpoint commands of a store. */
export type WebhookEndpointCommands = ReturnType<typeof webhookEndpointCommands>;

/** The plaintext key of an endpoint document. */
export const openSecret = (secrets: Secrets, document: WebhookEndpointDocument): string =>
  secrets.open(SECRET_PURPOSE, document.secret);
