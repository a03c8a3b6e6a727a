/**
 * The campaigns service's routes in the OpenAPI document (spec part 4, "Campaigns"; spec part 2,
 * "Campaign"; API reference, "Enums" and "Filter language").
 */
import { AUDIENCE_TYPES } from '@stamp/contracts';
import { deletedSchema, filterConditionSchema, isoTimestamp, type RouteDoc } from '@stamp/http-kit';
import { z } from 'zod';

import { sendBody, testBody } from './campaigns/api.ts';
import { campaignBody } from './campaigns/schema.ts';

/** A campaign as the routes answer it. */
const campaignSchema = z
  .object({
    id: z.string(),
    projectId: z.string(),
    name: z.string(),
    description: z.string().nullable(),
    subject: z.string(),
    body: z.string(),
    from: z.string(),
    fromName: z.string().nullable(),
    replyTo: z.string().nullable(),
    audienceType: z.enum(AUDIENCE_TYPES),
    type: z.enum(AUDIENCE_TYPES).describe('The audience type again (as Plunk answers it)'),
    segmentId: z.string().nullable(),
    audienceFilter: filterConditionSchema.nullable(),
    audienceCondition: filterConditionSchema.nullable().describe('`audienceFilter` again'),
    status: z.enum(['DRAFT', 'SCHEDULED', 'SENDING', 'SENT', 'CANCELLED']),
    scheduledAt: isoTimestamp.nullable(),
    sentAt: isoTimestamp.nullable(),
    cancelledAt: isoTimestamp.nullable(),
    cancelReason: z.string().nullable(),
    recipients: z.int().min(0).nullable(),
    createdAt: isoTimestamp,
    updatedAt: isoTimestamp,
  })
  .meta({ id: 'Campaign' });

/** The body of POST and PUT, with the audience filter's shape. */
const body = campaignBody.extend({
  audienceFilter: filterConditionSchema.nullish(),
  audienceCondition: filterConditionSchema.nullish().describe('Alias of `audienceFilter`'),
});

const engagement = z.object({
  unique: z.int().min(0),
  total: z.int().min(0),
  human: z.object({ unique: z.int().min(0), total: z.int().min(0) }),
  automated: z.object({ unique: z.int().min(0), total: z.int().min(0) }),
});

const rate = z.number().min(0);

const statsSchema = z
  .object({
    campaignId: z.string(),
    status: campaignSchema.shape.status,
    recipients: z.int().min(0),
    queued: z.int().min(0),
    sent: z.int().min(0),
    delivered: z.int().min(0),
    failed: z.int().min(0),
    bounced: z.int().min(0),
    complained: z.int().min(0),
    opened: z.int().min(0),
    clicked: z.int().min(0),
    unsubscribed: z.int().min(0),
    opens: engagement,
    clicks: engagement,
    rates: z.object({
      delivery: rate,
      failure: rate,
      bounce: rate,
      complaint: rate,
      open: rate,
      click: rate,
      unsubscribe: rate,
    }),
  })
  .meta({ id: 'CampaignStats' });

const notFound = { 404: { description: 'CAMPAIGN_NOT_FOUND' } };
const senderAndAudience = {
  403: { description: "The sender's domain is not a verified domain of the project" },
  404: { description: 'CAMPAIGN_NOT_FOUND, or the segment of the audience is unknown' },
};

/** Routes of the campaigns service. */
export const CAMPAIGNS_ROUTES: readonly RouteDoc[] = [
  {
    method: 'get',
    path: '/campaigns',
    summary: "The project's campaigns, newest first",
    auth: 'secret',
    responses: { 200: { description: 'The campaigns', schema: z.array(campaignSchema) } },
  },
  {
    method: 'post',
    path: '/campaigns',
    summary: 'Create a campaign (DRAFT)',
    auth: 'secret',
    body,
    responses: {
      201: {
        description: 'The campaign, wrapped',
        schema: z.object({ success: z.literal(true), data: campaignSchema }),
      },
      ...senderAndAudience,
    },
  },
  {
    method: 'get',
    path: '/campaigns/{id}',
    summary: 'Get a campaign',
    auth: 'secret',
    responses: { 200: { description: 'The campaign', schema: campaignSchema }, ...notFound },
  },
  {
    method: 'put',
    path: '/campaigns/{id}',
    summary: 'Replace the fields of a campaign',
    auth: 'secret',
    body,
    responses: {
      200: { description: 'The campaign', schema: campaignSchema },
      ...senderAndAudience,
      409: { description: 'The campaign is neither DRAFT nor SCHEDULED' },
    },
  },
  {
    method: 'delete',
    path: '/campaigns/{id}',
    summary: 'Delete a campaign',
    auth: 'secret',
    responses: {
      200: {
        description: 'Deleted',
        schema: deletedSchema,
      },
      ...notFound,
      409: { description: 'The campaign has active executions (scheduled or sending)' },
    },
  },
  {
    method: 'post',
    path: '/campaigns/{id}/duplicate',
    summary: 'Copy a campaign as a new DRAFT',
    auth: 'secret',
    responses: { 201: { description: 'The new campaign', schema: campaignSchema }, ...notFound },
  },
  {
    method: 'post',
    path: '/campaigns/{id}/send',
    summary: 'Send a campaign now, or at `scheduledFor`',
    auth: 'secret',
    body: sendBody,
    bodyRequired: false,
    responses: {
      200: { description: 'The campaign, SENDING or SCHEDULED', schema: campaignSchema },
      ...senderAndAudience,
      403: {
        description: "The sender's domain is not verified, or the project is suspended",
      },
      409: { description: 'The campaign is neither DRAFT nor SCHEDULED' },
    },
  },
  {
    method: 'post',
    path: '/campaigns/{id}/cancel',
    summary: 'Cancel a SCHEDULED or SENDING campaign',
    auth: 'secret',
    responses: {
      200: { description: 'The campaign, CANCELLED', schema: campaignSchema },
      ...notFound,
      409: { description: 'The campaign is neither scheduled nor sending' },
    },
  },
  {
    method: 'post',
    path: '/campaigns/{id}/test',
    summary: 'Send the campaign once to a test address',
    auth: 'secret',
    body: testBody,
    responses: {
      200: {
        description: 'The test email was queued',
        schema: z.object({ success: z.literal(true), emailId: z.string() }),
      },
      ...senderAndAudience,
      403: {
        description: "The sender's domain is not verified, or the project is suspended",
      },
    },
  },
  {
    method: 'get',
    path: '/campaigns/{id}/stats',
    summary: 'Send, delivery, open and click counts of a campaign',
    auth: 'secret',
    responses: { 200: { description: 'The counts and rates', schema: statsSchema }, ...notFound },
  },
];
