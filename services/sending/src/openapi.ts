/**
 * The sending service's routes in the OpenAPI document (spec part 4, POST /v1/send, "Templates",
 * uploads; API reference, "POST /v1/send", "Suppressions", "Open and click tracking").
 */
import { EMAIL_STATUSES } from '@stamp/contracts';
import {
  cursorPageSchema,
  cursorQuery,
  deletedSchema,
  isoTimestamp,
  type RouteDoc,
} from '@stamp/http-kit';
import { z } from 'zod';

import { sendBody } from './send/schema.ts';
import { snsMessage } from './sns/verify.ts';
import { createBody as suppressionBody } from './suppressions/api.ts';
import {
  createBody as templateCreateBody,
  patchBody as templatePatchBody,
} from './templates/api.ts';
import { TEMPLATE_TYPES } from './templates/events.ts';
import { listTemplatesQuery } from './templates/list.ts';

const mailbox = z.object({ name: z.string().optional(), email: z.string() });
const count = z.int().min(0);

/** A template (spec part 2, "Template"). */
const templateSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    subject: z.string(),
    body: z.string(),
    type: z.enum(TEMPLATE_TYPES),
    from: z.string().nullable(),
    fromName: z.string().nullable(),
    replyTo: z.string().nullable(),
    createdAt: isoTimestamp,
    updatedAt: isoTimestamp,
  })
  .meta({ id: 'Template' });

const outboxItem = z
  .object({
    id: z.string().describe('The email id'),
    from: z.string(),
    to: z.string(),
    subject: z.string(),
    capturedAt: isoTimestamp,
  })
  .meta({ id: 'OutboxMessage' });

const inboundItem = z
  .object({
    id: z.string(),
    contactId: z.string(),
    from: mailbox,
    to: z.array(z.string()),
    subject: z.string(),
    messageId: z.string().nullable(),
    size: count.describe('Bytes of the message'),
    receivedAt: isoTimestamp,
  })
  .meta({ id: 'InboundEmail' });

const suppressionReason = z.enum(['HARD_BOUNCE', 'COMPLAINT', 'MANUAL']);

const suppressionSchema = z
  .object({
    email: z.string(),
    reason: suppressionReason,
    createdAt: isoTimestamp,
    emailId: z.string().optional(),
  })
  .meta({ id: 'Suppression' });

const emailSchema = z
  .object({
    id: z.string(),
    contactId: z.string(),
    to: mailbox,
    from: mailbox,
    subject: z.string(),
    templateId: z.string().nullable(),
    sandbox: z.boolean(),
    status: z.enum(EMAIL_STATUSES),
    attempts: count,
    nextRetryAt: isoTimestamp.nullable(),
    createdAt: isoTimestamp,
    sentAt: isoTimestamp.nullable(),
    messageId: z.string().nullable(),
    error: z.string().nullable(),
    suppressed: suppressionReason.optional(),
    opens: z.object({ human: count, automated: count }),
    clicks: z.object({ human: count, automated: count }),
    firstOpenedAt: isoTimestamp.nullable(),
    firstClickedAt: isoTimestamp.nullable(),
  })
  .meta({ id: 'Email' });

const templateNotFound = { 404: { description: 'TEMPLATE_NOT_FOUND' } };
const senderNotVerified = {
  403: { description: 'DOMAIN_NOT_VERIFIED: the from is not on a verified domain of the project' },
};

/** Routes of the sending service. */
export const SENDING_ROUTES: readonly RouteDoc[] = [
  {
    method: 'post',
    path: '/v1/send',
    summary: 'Send a transactional email to one or more recipients',
    auth: 'key',
    body: sendBody,
    responses: {
      200: {
        description: 'The emails were accepted (one per recipient)',
        schema: z.object({
          success: z.literal(true),
          data: z.object({
            emails: z.array(
              z.object({
                contact: z.object({ id: z.string(), email: z.string() }),
                email: z.string().describe('The email id'),
              }),
            ),
            timestamp: isoTimestamp,
          }),
        }),
      },
      400: {
        description: 'Malformed body, or a MARKETING template to an unsubscribed contact',
      },
      402: { description: 'BILLING_LIMIT_EXCEEDED: the transactional cap of the project' },
      403: {
        description: 'DOMAIN_NOT_VERIFIED, or PROJECT_DISABLED (the project is suspended)',
      },
      404: { description: 'TEMPLATE_NOT_FOUND' },
      409: { description: 'IDEMPOTENCY_KEY_IN_USE: a request with this key is in flight' },
      413: { description: 'The message (or the body) is too large' },
      422: {
        description: 'VALIDATION_ERROR, or IDEMPOTENCY_KEY_REUSED with another body',
      },
    },
  },
  {
    method: 'post',
    path: '/templates',
    summary: 'Create a template',
    auth: 'secret',
    body: templateCreateBody,
    responses: {
      201: { description: 'The template', schema: templateSchema },
      ...senderNotVerified,
    },
  },
  {
    method: 'get',
    path: '/templates',
    summary: 'List templates (page or cursor)',
    auth: 'secret',
    query: listTemplatesQuery,
    responses: {
      200: {
        description: 'A page of templates, under `templates` and `data`',
        schema: z.object({
          data: z.array(templateSchema),
          templates: z.array(templateSchema),
          total: count,
          page: z.int().min(1),
          pageSize: z.int().min(1),
          totalPages: count,
          cursor: z.string(),
          hasMore: z.boolean(),
        }),
      },
    },
  },
  {
    method: 'get',
    path: '/templates/{id}',
    summary: 'Get a template',
    auth: 'secret',
    responses: {
      200: { description: 'The template', schema: templateSchema },
      ...templateNotFound,
    },
  },
  {
    method: 'patch',
    path: '/templates/{id}',
    summary: 'Update a template',
    auth: 'secret',
    body: templatePatchBody,
    responses: {
      200: { description: 'The template', schema: templateSchema },
      ...senderNotVerified,
      ...templateNotFound,
    },
  },
  {
    method: 'delete',
    path: '/templates/{id}',
    summary: 'Delete a template',
    auth: 'secret',
    responses: {
      200: {
        description: 'Deleted',
        schema: deletedSchema,
      },
      ...templateNotFound,
    },
  },
  {
    method: 'post',
    path: '/templates/{id}/duplicate',
    summary: 'Copy a template',
    auth: 'secret',
    responses: {
      201: { description: 'The new template', schema: templateSchema },
      ...templateNotFound,
    },
  },
  {
    method: 'get',
    path: '/templates/{id}/usage',
    summary: 'Campaigns and workflow steps that use a template',
    auth: 'secret',
    responses: {
      200: {
        description: 'The references, newest first',
        schema: z.object({
          campaigns: z.array(z.object({ id: z.string(), name: z.string(), status: z.string() })),
          workflows: z.array(
            z.object({
              id: z.string(),
              name: z.string(),
              steps: z.array(z.object({ id: z.string(), type: z.string() })),
            }),
          ),
        }),
      },
      ...templateNotFound,
    },
  },
  {
    method: 'get',
    path: '/outbox',
    summary: 'Messages captured by the local outbox, newest first (cursor list)',
    auth: 'secret',
    query: cursorQuery,
    responses: { 200: { description: 'A page of messages', schema: cursorPageSchema(outboxItem) } },
  },
  {
    method: 'get',
    path: '/outbox/{emailId}',
    summary: 'A captured message with its raw, signed MIME text',
    auth: 'secret',
    responses: {
      200: { description: 'The message', schema: outboxItem.extend({ raw: z.string() }) },
      404: { description: 'RESOURCE_NOT_FOUND' },
    },
  },
  {
    method: 'get',
    path: '/emails/{id}',
    summary: 'Status of an email, with its opens and clicks',
    auth: 'secret',
    responses: {
      200: { description: 'The email', schema: emailSchema },
      404: { description: 'RESOURCE_NOT_FOUND' },
    },
  },
  {
    method: 'get',
    path: '/inbound',
    summary: 'Mail received for the project’s domains, newest first (cursor list)',
    auth: 'secret',
    query: cursorQuery,
    responses: {
      200: { description: 'A page of received mail', schema: cursorPageSchema(inboundItem) },
    },
  },
  {
    method: 'get',
    path: '/inbound/{id}',
    summary: 'A received message with its raw text',
    auth: 'secret',
    responses: {
      200: { description: 'The message', schema: inboundItem.extend({ raw: z.string() }) },
      404: { description: 'RESOURCE_NOT_FOUND' },
    },
  },
  {
    method: 'get',
    path: '/suppressions',
    summary: 'The suppression list, newest first (cursor list)',
    auth: 'secret',
    query: cursorQuery,
    responses: {
      200: { description: 'A page of suppressions', schema: cursorPageSchema(suppressionSchema) },
    },
  },
  {
    method: 'post',
    path: '/suppressions',
    summary: 'Suppress an address (MANUAL)',
    auth: 'secret',
    body: suppressionBody,
    responses: {
      200: { description: 'The address already was suppressed', schema: suppressionSchema },
      201: { description: 'Suppressed', schema: suppressionSchema },
    },
  },
  {
    method: 'delete',
    path: '/suppressions/{email}',
    summary: 'Remove an address from the suppression list',
    auth: 'secret',
    responses: {
      204: { description: 'Removed' },
      404: { description: 'RESOURCE_NOT_FOUND: the address is not suppressed' },
    },
  },
  {
    method: 'post',
    path: '/uploads/image',
    summary: 'Upload an image (PNG, JPEG, GIF or WebP) for emails; answers its public URL',
    auth: 'secret',
    body: z.object({
      file: z.string().describe('The image (`image` is accepted as the field name too)'),
    }),
    bodyContentType: 'multipart/form-data',
    responses: {
      201: {
        description: 'The stored image',
        schema: z.object({
          id: z.string().describe('128 random bits, 32 hex digits'),
          url: z.string().describe('`{STAMP_PUBLIC_URL}/images/<project id>/<id>.<ext>`'),
          contentType: z.enum(['image/png', 'image/jpeg', 'image/gif', 'image/webp']),
          size: z.int().min(1).describe('Bytes'),
        }),
      },
      400: { description: 'Not multipart/form-data, or a malformed multipart body' },
      413: { description: 'The image is larger than STAMP_UPLOAD_MAX_BYTES' },
      415: { description: 'UNSUPPORTED_MEDIA_TYPE: not a PNG, JPEG, GIF or WebP image' },
      503: { description: 'The storage failed' },
    },
  },
  {
    method: 'get',
    path: '/images/{projectId}/{file}',
    summary: 'An uploaded image (public, immutable)',
    auth: 'none',
    tags: ['public'],
    responses: {
      200: { description: 'The image', contentType: 'image/*' },
      404: { description: 'RESOURCE_NOT_FOUND' },
      503: { description: 'The storage failed' },
    },
  },
  {
    method: 'get',
    path: '/t/o/{token}',
    summary: 'Open pixel of a tracked email (a 1×1 GIF, never cached)',
    auth: 'none',
    tags: ['public'],
    responses: {
      200: { description: 'The pixel', contentType: 'image/gif' },
      404: { description: 'Malformed or forged token', contentType: 'text/plain' },
    },
  },
  {
    method: 'get',
    path: '/t/c/{token}',
    summary: 'Click of a tracked link: redirects to its original URL',
    auth: 'none',
    tags: ['public'],
    responses: {
      302: { description: 'Redirect to the original URL (Location header)' },
      404: { description: 'Malformed or forged token', contentType: 'text/plain' },
    },
  },
  {
    method: 'post',
    path: '/webhooks/sns',
    summary: 'Amazon SNS notifications of SES bounces and complaints (signed messages)',
    auth: 'none',
    tags: ['public'],
    body: snsMessage,
    bodyContentType: 'text/plain',
    responses: {
      200: {
        description: 'Confirmed, recorded, or acknowledged and ignored',
        schema: z.object({
          success: z.literal(true),
          confirmed: z.boolean().optional(),
          recorded: z.boolean().optional(),
          emailId: z.string().optional(),
        }),
      },
      403: { description: 'The message is not verified' },
      502: { description: 'SNS refused the subscription confirmation' },
    },
  },
];
