/**
 * Webhook endpoints (API reference, "Webhook endpoints (outbound, to users)"): where a project
 * wants its events posted. One stream per endpoint, `webhookEndpoint-<endpointId>`; the signing
 * secret is kept sealed with the platform secret.
 */
import { ApiError } from '@stamp/http-kit';
import type { StreamModel } from '@stamp/platform';

/** Stream category of webhook endpoints. */
export const WEBHOOK_ENDPOINT_CATEGORY = 'webhookEndpoint';

/** Stream id of endpoint `id`. */
export const webhookEndpointStream = (id: string): string => `${WEBHOOK_ENDPOINT_CATEGORY}-${id}`;

/** The settings of an endpoint as created. */
export interface WebhookEndpointSettings {
  /** Absolute `http:` or `https:` URL. */
  url: string;
  /** Webhook event types, or `['*']` for all. */
  eventTypes: string[];
  description?: string;
  enabled: boolean;
}

/** A change of settings: the fields given; an empty `description` removes it. */
export type WebhookEndpointChange = Partial<WebhookEndpointSettings>;

/** The events of an endpoint stream. */
export type WebhookEndpointEvent =
  | {
      type: 'WebhookEndpointCreated';
      /** `secret`: the Standard Webhooks key (`whsec_…`), sealed. */
      data: WebhookEndpointSettings & { projectId: string; secret: string };
    }
  | { type: 'WebhookEndpointUpdated'; data: WebhookEndpointChange }
  | { type: 'WebhookEndpointDisabled'; data: { reason: string; failingSince: string } }
  | { type: 'WebhookEndpointDeleted'; data: Record<string, never> };

/** State of an endpoint stream. */
export interface WebhookEndpointState {
  exists: boolean;
  deleted: boolean;
  projectId: string;
  enabled: boolean;
}

/** The endpoint streams (see `streamCommands`). */
export const webhookEndpointModel: StreamModel<WebhookEndpointState, WebhookEndpointEvent> = {
  stream: webhookEndpointStream,
  initial: () => ({ exists: false, deleted: false, projectId: '', enabled: false }),
  evolve(state, event) {
    switch (event.type) {
      case 'WebhookEndpointCreated':
        return {
          ...state,
          exists: true,
          projectId: event.data.projectId,
          enabled: event.data.enabled,
        };
      case 'WebhookEndpointUpdated':
        return event.data.enabled === undefined ? state : { ...state, enabled: event.data.enabled };
      case 'WebhookEndpointDisabled':
        return { ...state, enabled: false };
      case 'WebhookEndpointDeleted':
        return { ...state, deleted: true };
    }
  },
  types: new Set([
    'WebhookEndpointCreated',
    'WebhookEndpointUpdated',
    'WebhookEndpointDisabled',
    'WebhookEndpointDeleted',
  ]),
};

const notFound = (): ApiError =>
  new ApiError(404, 'RESOURCE_NOT_FOUND', 'Webhook endpoint not found');

/** Whether the loaded stream is a live endpoint of `projectId`. */
const live = (state: WebhookEndpointState, projectId: string): boolean =>
  state.exists && !state.deleted && state.projectId === projectId;

/**
 * The events of a settings change: none when `change` is empty. Pure.
 * @throws ApiError 404 RESOURCE_NOT_FOUND when the endpoint does not exist in `projectId`.
 */
export function decideUpdate(
  state: WebhookEndpointState,
  projectId: string,
  change: WebhookEndpointChange,
): WebhookEndpointEvent[] {
  if (!live(state, projectId)) throw notFound();
  return Object.keys(change).length === 0 ? [] : [{ type: 'WebhookEndpointUpdated', data: change }];
}

/**
 * The event that disables an endpoint after days of failure: none when it is gone or already
 * disabled. Pure.
 */
export function decideDisable(
  state: WebhookEndpointState,
  failingSince: string,
  reason: string,
): WebhookEndpointEvent[] {
  if (!state.exists || state.deleted || !state.enabled) return [];
  return [{ type: 'WebhookEndpointDisabled', data: { reason, failingSince } }];
}

/**
 * The event that deletes an endpoint. Pure.
 * @throws ApiError 404 RESOURCE_NOT_FOUND when the endpoint does not exist in `projectId`.
 */
export function decideDelete(
  state: WebhookEndpointState,
  projectId: string,
): WebhookEndpointEvent[] {
  if (!live(state, projectId)) throw notFound();
  return [{ type: 'WebhookEndpointDeleted', data: {} }];
}
