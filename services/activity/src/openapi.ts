/**
 * The activity service's routes in the OpenAPI document (spec part 4, "Domains, activity,
 * analytics, uploads"; API reference, "Webhook endpoints (outbound, to users)").
 */
import { cursorPageSchema, isoTimestamp, type RouteDoc } from '@stamp/http-kit';
import { z } from 'zod';

import {
  campaignStatsQuery,
  timeseriesQuery,
  topCampaignsQuery,
  topEventsQuery,
} from './analytics/api.ts';
import { feedQuery, recentQuery, statsQuery } from './feed/api.ts';
import { ACTIVITY_TYPES } from './feed/items.ts';
import { upcomingQuery } from './upcoming/api.ts';
import { createBody, deliveriesQuery, patchBody } from './webhooks/api.ts';
import { WEBHOOK_EVENT_TYPES } from './webhooks/payloads.ts';

const count = z.int().min(0);
const activityType = z.enum(ACTIVITY_TYPES);
const countsByType = z.record(activityType, count);
const contactRef = z.object({ id: z.string(), email: z.string() }).nullable();

const activityItem = z
  .object({
    id: z.string(),
    type: activityType,
    createdAt: isoTimestamp,
    contact: contactRef,
    emailId: z.string().optional(),
    data: z.record(z.string(), z.unknown()),
  })
  .meta({ id: 'ActivityItem' });

const metrics = {
  sent: count,
  delivered: count,
  opened: count,
  clicked: count,
  bounced: count,
};

const campaignMetrics = z.object({ campaignId: z.string(), ...metrics });

/** A webhook endpoint (its `secret` verifies the signatures of its posts). */
const endpointSchema = z
  .object({
    id: z.string(),
    url: z.string(),
    eventTypes: z.array(z.enum(['*', ...WEBHOOK_EVENT_TYPES])),
    description: z.string().optional(),
    secret: z.string().describe('Standard Webhooks key, `whsec_` and base64'),
    enabled: z.boolean(),
    disabledReason: z.string().optional(),
    createdAt: isoTimestamp,
    updatedAt: isoTimestamp,
  })
  .meta({ id: 'WebhookEndpoint' });

const deliverySchema = z
  .object({
    id: z.string(),
    eventType: z.string(),
    status: z.enum(['PENDING', 'SUCCEEDED', 'FAILED']),
    attempts: count,
    lastStatusCode: z.int().optional(),
    lastLatencyMs: z.number().min(0).optional(),
    lastError: z.string().optional(),
    nextAttemptAt: isoTimestamp.optional(),
    createdAt: isoTimestamp,
  })
  .meta({ id: 'WebhookDelivery' });

const endpointNotFound = { 404: { description: 'RESOURCE_NOT_FOUND: no such endpoint' } };

/** Routes of the activity service. */
export const ACTIVITY_ROUTES: readonly RouteDoc[] = [
  {
    method: 'get',
    path: '/activity',
    summary: 'The activity feed, newest first (cursor list)',
    auth: 'secret',
    query: feedQuery,
    responses: { 200: { description: 'A page of items', schema: cursorPageSchema(activityItem) } },
  },
  {
    method: 'get',
    path: '/activity/stats',
    summary: 'Activity counts by type and UTC day',
    auth: 'secret',
    query: statsQuery,
    responses: {
      200: {
        description: 'The counts',
        schema: z.object({
          from: z.iso.date(),
          to: z.iso.date(),
          total: count,
          byType: countsByType,
          daily: z.array(z.object({ date: z.iso.date(), total: count, byType: countsByType })),
        }),
      },
    },
  },
  {
    method: 'get',
    path: '/activity/recent-count',
    summary: 'Activity items of the last hours',
    auth: 'secret',
    query: recentQuery,
    responses: {
      200: {
        description: 'The count',
        schema: z.object({ count, since: isoTimestamp, hours: z.int().min(1) }),
      },
    },
  },
  {
    method: 'get',
    path: '/activity/types',
    summary: 'Activity types present in the project, most frequent first',
    auth: 'secret',
    responses: {
      200: {
        description: 'The types with their counts',
        schema: z.object({ types: z.array(z.object({ type: activityType, count })) }),
      },
    },
  },
  {
    method: 'get',
    path: '/activity/upcoming',
    summary: 'Scheduled campaign sends and active workflow executions',
    auth: 'secret',
    query: upcomingQuery,
    responses: {
      200: {
        description: 'Upcoming work, soonest first',
        schema: z.object({
          campaigns: z.array(
            z.object({
              id: z.string(),
              name: z.string(),
              status: z.literal('SCHEDULED'),
              scheduledAt: isoTimestamp,
            }),
          ),
          executions: z.array(
            z.object({
              id: z.string(),
              workflowId: z.string(),
              workflowName: z.string().nullable(),
              contact: contactRef,
              status: z.enum(['RUNNING', 'WAITING']),
              startedAt: isoTimestamp,
              nextRunAt: isoTimestamp.nullable(),
            }),
          ),
        }),
      },
    },
  },
  {
    method: 'get',
    path: '/analytics/timeseries',
    summary: 'Emails sent, delivered, opened, clicked and bounced per UTC day or hour',
    auth: 'secret',
    query: timeseriesQuery,
    responses: {
      200: {
        description: 'The series, zero-filled, oldest first',
        schema: z.object({
          granularity: z.enum(['day', 'hour']),
          from: isoTimestamp,
          to: isoTimestamp,
          series: z.array(z.object({ timestamp: isoTimestamp, ...metrics })),
        }),
      },
    },
  },
  {
    method: 'get',
    path: '/analytics/campaign-stats',
    summary: 'Email counts per campaign, all time, most sent first',
    auth: 'secret',
    query: campaignStatsQuery,
    responses: {
      200: {
        description: 'The campaigns',
        schema: z.object({ campaigns: z.array(campaignMetrics) }),
      },
    },
  },
  {
    method: 'get',
    path: '/analytics/top-campaigns',
    summary: 'Campaigns with the highest count of a metric',
    auth: 'secret',
    query: topCampaignsQuery,
    responses: {
      200: {
        description: 'The campaigns, highest first',
        schema: z.object({
          metric: z.enum(['sent', 'delivered', 'opened', 'clicked', 'bounced']),
          campaigns: z.array(campaignMetrics),
        }),
      },
    },
  },
  {
    method: 'get',
    path: '/analytics/top-events',
    summary: 'The most triggered event names, all time',
    auth: 'secret',
    query: topEventsQuery,
    responses: {
      200: {
        description: 'The names, most frequent first',
        schema: z.object({ events: z.array(z.object({ name: z.string(), count })) }),
      },
    },
  },
  {
    method: 'post',
    path: '/webhook-endpoints',
    summary: "Create a webhook endpoint for the project's events",
    auth: 'secret',
    body: createBody(false),
    responses: { 201: { description: 'The endpoint with its secret', schema: endpointSchema } },
  },
  {
    method: 'get',
    path: '/webhook-endpoints',
    summary: "The project's webhook endpoints, oldest first",
    auth: 'secret',
    responses: { 200: { description: 'The endpoints', schema: z.array(endpointSchema) } },
  },
  {
    method: 'get',
    path: '/webhook-endpoints/{id}',
    summary: 'Get a webhook endpoint',
    auth: 'secret',
    responses: {
      200: { description: 'The endpoint', schema: endpointSchema },
      ...endpointNotFound,
    },
  },
  {
    method: 'patch',
    path: '/webhook-endpoints/{id}',
    summary: 'Change a webhook endpoint (`enabled: true` enables it again)',
    auth: 'secret',
    body: patchBody(false),
    responses: {
      200: { description: 'The endpoint', schema: endpointSchema },
      ...endpointNotFound,
    },
  },
  {
    method: 'delete',
    path: '/webhook-endpoints/{id}',
    summary: 'Delete a webhook endpoint and its delivery log',
    auth: 'secret',
    responses: { 204: { description: 'Deleted' }, ...endpointNotFound },
  },
  {
    method: 'get',
    path: '/webhook-endpoints/{id}/deliveries',
    summary: "An endpoint's delivery log, newest first (cursor list)",
    auth: 'secret',
    query: deliveriesQuery,
    responses: {
      200: { description: 'A page of deliveries', schema: cursorPageSchema(deliverySchema) },
      ...endpointNotFound,
    },
  },
  {
    method: 'get',
    path: '/webhook-endpoints/{id}/deliveries/{deliveryId}',
    summary: 'A delivery with its payload and its attempts',
    auth: 'secret',
    responses: {
      200: {
        description: 'The delivery',
        schema: deliverySchema.extend({
          eventId: z.string(),
          payload: z.unknown().describe('The body posted: `{type, timestamp, data}`'),
          log: z.array(
            z.object({
              attemptedAt: isoTimestamp,
              statusCode: z.int().optional(),
              latencyMs: z.number().min(0),
              error: z.string().optional(),
            }),
          ),
        }),
      },
      404: { description: 'RESOURCE_NOT_FOUND: no such endpoint or delivery' },
    },
  },
  {
    method: 'post',
    path: '/webhook-endpoints/{id}/deliveries/{deliveryId}/retry',
    summary: 'Try a delivery again now',
    auth: 'secret',
    responses: {
      202: { description: 'The delivery, due now', schema: deliverySchema },
      404: { description: 'RESOURCE_NOT_FOUND: no such endpoint or delivery' },
      409: { description: 'The endpoint is disabled' },
    },
  },
];
