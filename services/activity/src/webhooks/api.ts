/**
 * Routes of webhook endpoints (API reference, "Webhook endpoints (outbound, to users)"; secret
 * key). Errors: 404 RESOURCE_NOT_FOUND for an endpoint or delivery not of the project, 422
 * VALIDATION_ERROR for a bad body or query, 409 CONFLICT for a retry to a disabled endpoint.
 *
 * - `POST /webhook-endpoints {url, eventTypes, description?, enabled?}` → 201 the endpoint with
 *   its `secret` (`whsec_…`).
 * - `GET /webhook-endpoints` → 200 the project's endpoints, oldest first (not paginated).
 * - `GET|PATCH|DELETE /webhook-endpoints/:id` → 200 the endpoint (PATCH: the fields given;
 *   `enabled: true` re-enables one the platform disabled); DELETE 204 (its log goes with it).
 * - `GET /webhook-endpoints/:id/deliveries?status=&limit=&cursor=` → 200 cursor list, newest
 *   first, of `{id, eventType, status, attempts, lastStatusCode?, lastLatencyMs?, lastError?,
 *   nextAttemptAt?, createdAt}`.
 * - `GET /webhook-endpoints/:id/deliveries/:deliveryId` → 200 the delivery with its `eventId`,
 *   `payload` (the body posted) and `log` of attempts (`{attemptedAt, statusCode?, latencyMs,
 *   error?}`).
 * - `POST /webhook-endpoints/:id/deliveries/:deliveryId/retry` → 202 the delivery, due now: a
 *   waiting one is tried at once; a finished one (SUCCEEDED or FAILED) gets one more attempt.
 */
import { isIP } from 'node:net';

import type { AwaitViews } from '@stamp/contracts';
import {
  caller,
  conflict,
  cursorParam,
  findCursorPage,
  notFound,
  pageSizeParam,
  parse,
} from '@stamp/http-kit';
import { isInternalAddress, type Secrets, type ViewStore } from '@stamp/platform';
import { Router } from 'express';
import { z } from 'zod';

import {
  type DeliveryStatus,
  WEBHOOK_DELIVERIES,
  type WebhookDeliveryDocument,
} from './deliveries.ts';
import {
  openSecret,
  WEBHOOK_ENDPOINTS,
  type WebhookEndpointCommands,
  type WebhookEndpointDocument,
} from './endpoints.ts';
import { WEBHOOK_EVENT_TYPES } from './payloads.ts';

/** Dependencies of {@link webhookEndpointsRouter}. */
export interface WebhookEndpointsRouterDeps {
  views: ViewStore;
  commands: WebhookEndpointCommands;
  secrets: Secrets;
  awaitViews: AwaitViews;
  /** STAMP_ALLOW_PRIVATE_TARGETS: whether a loopback or private literal address is accepted. */
  allowPrivateTargets: boolean;
  /** Asks the delivery worker to look for due deliveries. */
  nudge: () => void;
  /** Clock, epoch ms. */
  now: () => number;
}

/** The URL of an endpoint: absolute http(s), at most 2,048 characters, no internal literal. */
const endpointUrl = (allowPrivateTargets: boolean) =>
  z
    .string()
    .max(2048)
    .superRefine((value, ctx) => {
      const url = URL.parse(value);
      if (url === null) {
        ctx.addIssue({ code: 'custom', message: 'Must be an absolute URL' });
      } else if (url.protocol !== 'http:' && url.protocol !== 'https:') {
        ctx.addIssue({ code: 'custom', message: 'Must be an http or https URL' });
      } else if (!allowPrivateTargets && isInternalHost(url.hostname)) {
        ctx.addIssue({
          code: 'custom',
          message: 'Must not be a loopback, private or link-local address',
        });
      }
    });

/** Whether `hostname` (of a URL) is `localhost` or an internal IP literal. */
function isInternalHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  return isIP(host) !== 0 && isInternalAddress(host);
}

const eventTypes = z
  .array(z.enum(['*', ...WEBHOOK_EVENT_TYPES]))
  .min(1)
  .max(WEBHOOK_EVENT_TYPES.length + 1)
  .transform((types) => (types.includes('*') ? ['*'] : [...new Set(types)]));

const description = z.string().max(500);

/** Body of POST /webhook-endpoints (URLs on internal addresses refused unless allowed). */
export const createBody = (allowPrivateTargets: boolean) =>
  z.object({
    url: endpointUrl(allowPrivateTargets),
    eventTypes,
    description: description.optional(),
    enabled: z.boolean().default(true),
  });

/** Body of PATCH /webhook-endpoints/:id: the fields of the create body, each optional. */
export const patchBody = (allowPrivateTargets: boolean) =>
  z
    .object({
      url: endpointUrl(allowPrivateTargets),
      eventTypes,
      description,
      enabled: z.boolean(),
    })
    .partial();

/** Query of GET /webhook-endpoints/:id/deliveries. */
export const deliveriesQuery = z.object({
  limit: pageSizeParam,
  cursor: cursorParam,
  status: z.enum(['PENDING', 'SUCCEEDED', 'FAILED']).optional(),
});

/** An endpoint as the API answers it. */
function toEndpointResource(
  secrets: Secrets,
  document: WebhookEndpointDocument,
): Record<string, unknown> {
  return {
    id: document._id,
    url: document.url,
    eventTypes: document.eventTypes,
    ...(document.description === null ? {} : { description: document.description }),
    secret: openSecret(secrets, document),
    enabled: document.enabled,
    ...(document.disabledReason === null ? {} : { disabledReason: document.disabledReason }),
    createdAt: document.createdAt,
    updatedAt: document.updatedAt,
  };
}

/** A delivery as the list answers it. */
export function toDeliveryResource(document: WebhookDeliveryDocument): Record<string, unknown> {
  return {
    id: document._id,
    eventType: document.eventType,
    status: document.status,
    attempts: document.attempts,
    ...(document.lastStatusCode === null ? {} : { lastStatusCode: document.lastStatusCode }),
    ...(document.lastLatencyMs === null ? {} : { lastLatencyMs: document.lastLatencyMs }),
    ...(document.lastError === null ? {} : { lastError: document.lastError }),
    ...(document.nextAttemptAt === null
      ? {}
      : { nextAttemptAt: new Date(document.nextAttemptAt).toISOString() }),
    createdAt: document.createdAt,
  };
}

/** The webhook endpoints router (see the module comment). */
export function webhookEndpointsRouter(deps: WebhookEndpointsRouterDeps): Router {
  const router = Router();
  const endpoints = () => deps.views.collection<WebhookEndpointDocument>(WEBHOOK_ENDPOINTS);
  const deliveries = () => deps.views.collection<WebhookDeliveryDocument>(WEBHOOK_DELIVERIES);
  const resource = (document: WebhookEndpointDocument) =>
    toEndpointResource(deps.secrets, document);

  /** The live endpoint `id` of `projectId`; 404 otherwise. */
  async function endpointOf(projectId: string, id: string): Promise<WebhookEndpointDocument> {
    const found = await endpoints().findOne({ _id: id, projectId, deleted: false });
    if (found === null) throw notFound('RESOURCE_NOT_FOUND', 'Webhook endpoint not found');
    return found;
  }

  /** Delivery `deliveryId` of the endpoint; 404 otherwise. */
  async function deliveryOf(endpoint: WebhookEndpointDocument, deliveryId: string) {
    const found = await deliveries().findOne({ _id: deliveryId, endpointId: endpoint._id });
    if (found === null) throw notFound('RESOURCE_NOT_FOUND', 'Delivery not found');
    return found;
  }

  router.post('/webhook-endpoints', async (req, res) => {
    const { projectId, requestId } = caller(res);
    const body = parse(createBody(deps.allowPrivateTargets), req.body ?? {});
    const settings = {
      url: body.url,
      eventTypes: body.eventTypes,
      enabled: body.enabled,
      ...(body.description === undefined || body.description === ''
        ? {}
        : { description: body.description }),
    };
    const result = await deps.commands.create({ projectId, correlationId: requestId }, settings);
    await deps.awaitViews(result.position);
    res.status(201).json(resource(await endpointOf(projectId, result.id)));
  });

  router.get('/webhook-endpoints', async (_req, res) => {
    const { projectId } = caller(res);
    const found = await endpoints().find(
      { projectId, deleted: false },
      { sort: { createdAt: 1, _id: 1 } },
    );
    res.json(found.map(resource));
  });

  router.get('/webhook-endpoints/:id', async (req, res) => {
    const { projectId } = caller(res);
    res.json(resource(await endpointOf(projectId, req.params.id)));
  });

  router.patch('/webhook-endpoints/:id', async (req, res) => {
    const { projectId, requestId } = caller(res);
    const change = parse(patchBody(deps.allowPrivateTargets), req.body ?? {});
    await endpointOf(projectId, req.params.id);
    const result = await deps.commands.update(
      { projectId, correlationId: requestId },
      req.params.id,
      change,
    );
    await deps.awaitViews(result.position);
    res.json(resource(await endpointOf(projectId, req.params.id)));
  });

  router.delete('/webhook-endpoints/:id', async (req, res) => {
    const { projectId, requestId } = caller(res);
    await endpointOf(projectId, req.params.id);
    const result = await deps.commands.remove(
      { projectId, correlationId: requestId },
      req.params.id,
    );
    await deps.awaitViews(result.position);
    // Its log goes with it (a delivery still waiting is dropped by the worker, if it reads it).
    await deliveries().deleteMany({ endpointId: req.params.id });
    res.status(204).end();
  });

  router.get('/webhook-endpoints/:id/deliveries', async (req, res) => {
    const { projectId } = caller(res);
    const query = parse(deliveriesQuery, req.query);
    const endpoint = await endpointOf(projectId, req.params.id);
    const filter: Record<string, unknown> = { endpointId: endpoint._id };
    if (query.status !== undefined) filter.status = query.status;
    const page = await findCursorPage(deliveries(), filter, query, toDeliveryResource, {
      field: 'createdAt',
      direction: -1,
    });
    res.json(page);
  });

  router.get('/webhook-endpoints/:id/deliveries/:deliveryId', async (req, res) => {
    const { projectId } = caller(res);
    const endpoint = await endpointOf(projectId, req.params.id);
    const delivery = await deliveryOf(endpoint, req.params.deliveryId);
    res.json({
      ...toDeliveryResource(delivery),
      eventId: delivery.eventId,
      payload: JSON.parse(delivery.body) as unknown,
      log: delivery.log,
    });
  });

  router.post('/webhook-endpoints/:id/deliveries/:deliveryId/retry', async (req, res) => {
    const { projectId } = caller(res);
    const endpoint = await endpointOf(projectId, req.params.id);
    if (!endpoint.enabled) {
      throw conflict('The endpoint is disabled: enable it before retrying its deliveries');
    }
    const delivery = await deliveryOf(endpoint, req.params.deliveryId);
    const finished: DeliveryStatus[] = ['SUCCEEDED', 'FAILED'];
    const manual = finished.includes(delivery.status);
    const due = { status: 'PENDING', nextAttemptAt: deps.now(), manual };
    await deliveries().updateOne({ _id: delivery._id, status: delivery.status }, { $set: due });
    deps.nudge();
    res.status(202).json(toDeliveryResource(await deliveryOf(endpoint, delivery._id)));
  });

  return router;
}
