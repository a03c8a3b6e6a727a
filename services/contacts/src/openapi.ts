/**
 * The contacts service's routes in the OpenAPI document (spec part 4, "Contacts", "Events",
 * POST /v1/track and POST /v1/verify): request schemas are the handlers' own, response schemas
 * describe what the handlers answer.
 */
import {
  cursorPageSchema,
  cursorQuery,
  isoTimestamp,
  namedReference,
  type RouteDoc,
} from '@stamp/http-kit';
import { z } from 'zod';

import {
  createBody,
  listQuery as contactListQuery,
  lookupBody,
  updateBody,
} from './contacts/api.ts';
import { listQuery as eventListQuery, pageQuery as eventPageQuery } from './events/api.ts';
import { FIELD_TYPES } from './fields/infer.ts';
import { bulkBody } from './jobs/api.ts';
import { BULK_KINDS } from './jobs/events.ts';
import { trackBody } from './track/api.ts';
import { VerifyBody } from './verify/api.ts';

const dataValue = z.union([z.string(), z.number(), z.boolean()]);

/** A contact as the API answers it (spec part 2). */
export const contactSchema = z
  .object({
    id: z.string(),
    email: z.string(),
    subscribed: z.boolean(),
    data: z.record(z.string(), dataValue),
    createdAt: isoTimestamp,
    updatedAt: isoTimestamp,
  })
  .meta({ id: 'Contact' });

const rowOutcome = z.enum([
  'created',
  'updated',
  'unchanged',
  'subscribed',
  'unsubscribed',
  'deleted',
  'notFound',
  'failed',
]);

/** A contact job (import or bulk) as GET answers it (API reference, job status). */
const jobSchema = z
  .object({
    id: z.string(),
    type: z.enum(['import', ...BULK_KINDS]),
    status: z.enum(['QUEUED', 'RUNNING', 'COMPLETED', 'FAILED']),
    progress: z.int().min(0).max(100),
    processed: z.int().min(0),
    total: z.int().min(0),
    result: z.partialRecord(rowOutcome, z.int().min(0)),
    errors: z.array(
      z.object({
        line: z.int().optional(),
        email: z.string().optional(),
        id: z.string().optional(),
        reason: z.string(),
      }),
    ),
    errorCount: z.int().min(0),
    failedReason: z.string().nullable(),
    fileName: z.string().nullable().optional().describe('Imports only'),
    createdAt: isoTimestamp,
    startedAt: isoTimestamp.nullable(),
    completedAt: isoTimestamp.nullable(),
  })
  .meta({ id: 'ContactJob' });

/** A queued job: the job with its id again and a message. */
const queuedJobSchema = jobSchema.extend({ jobId: z.string(), message: z.string() });

const trackedEventSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    contactId: z.string(),
    contact: z.object({ id: z.string(), email: z.string() }).nullable(),
    data: z.record(z.string(), dataValue),
    createdAt: isoTimestamp,
  })
  .meta({ id: 'TrackedEvent' });

const usageSchema = z.object({
  segments: z.array(namedReference),
  campaigns: z.array(namedReference),
  workflows: z.array(namedReference),
});

const fieldType = z.enum(FIELD_TYPES);

const verificationSchema = z
  .object({
    email: z.string(),
    valid: z.boolean(),
    isDisposable: z.boolean(),
    isAlias: z.boolean(),
    isTypo: z.boolean(),
    isPlusAddressed: z.boolean(),
    isPersonalEmail: z.boolean(),
    domainExists: z.boolean(),
    hasWebsite: z.boolean(),
    hasMxRecords: z.boolean(),
    suggestedEmail: z.string().optional(),
    reasons: z.array(z.string()),
  })
  .meta({ id: 'VerificationResult' });

const trackAnswer = z.object({
  success: z.literal(true),
  data: z.object({ contact: z.string(), event: z.string(), timestamp: isoTimestamp }),
});

const HTML = 'text/html';

/** Answers of the subscription pages, which are HTML pages, errors included. */
const pageAnswers: RouteDoc['responses'] = {
  200: { description: 'The page', contentType: HTML },
  400: { description: 'Malformed request (page)', contentType: HTML },
  404: { description: 'Invalid or forged link, or the contact is gone (page)', contentType: HTML },
  500: { description: 'Unexpected error (page)', contentType: HTML },
};

const formAnswers: RouteDoc['responses'] = {
  ...pageAnswers,
  413: { description: 'Form body too large (page)', contentType: HTML },
  415: { description: 'Unsupported form encoding (page)', contentType: HTML },
};

const unsubscribeForm = z.object({
  'List-Unsubscribe': z.literal('One-Click').optional(),
});

/** Routes of the contacts service. */
export const CONTACTS_ROUTES: readonly RouteDoc[] = [
  {
    method: 'get',
    path: '/contacts',
    summary: 'List contacts (cursor list)',
    auth: 'secret',
    query: contactListQuery,
    responses: {
      200: { description: 'A page of contacts', schema: cursorPageSchema(contactSchema) },
    },
  },
  {
    method: 'post',
    path: '/contacts',
    summary: 'Create or update a contact by email',
    auth: 'secret',
    body: createBody,
    responses: {
      200: {
        description: 'An existing contact, updated',
        schema: contactSchema.extend({
          _meta: z.object({ isNew: z.boolean(), isUpdate: z.boolean() }),
        }),
      },
      201: {
        description: 'A new contact',
        schema: contactSchema.extend({
          _meta: z.object({ isNew: z.boolean(), isUpdate: z.boolean() }),
        }),
      },
    },
  },
  {
    method: 'post',
    path: '/contacts/lookup',
    summary: 'Check which emails are contacts (at most 500)',
    auth: 'secret',
    body: lookupBody,
    responses: {
      200: {
        description: 'Each email in request order, normalised',
        schema: z.object({
          data: z.array(
            z.object({ email: z.string(), exists: z.boolean(), id: z.string().nullable() }),
          ),
          found: z.int().min(0),
        }),
      },
    },
  },
  {
    method: 'get',
    path: '/contacts/{id}',
    summary: 'Get a contact',
    auth: 'secret',
    responses: {
      200: { description: 'The contact', schema: contactSchema },
      404: { description: 'CONTACT_NOT_FOUND' },
    },
  },
  {
    method: 'patch',
    path: '/contacts/{id}',
    summary: "Update a contact's email, subscription or data",
    auth: 'secret',
    body: updateBody,
    responses: {
      200: { description: 'The contact', schema: contactSchema },
      404: { description: 'CONTACT_NOT_FOUND' },
      409: { description: 'Another contact of the project has this email' },
    },
  },
  {
    method: 'delete',
    path: '/contacts/{id}',
    summary: 'Delete a contact and erase its personal data',
    auth: 'secret',
    responses: {
      204: { description: 'Deleted' },
      404: { description: 'CONTACT_NOT_FOUND' },
    },
  },
  {
    method: 'get',
    path: '/contacts/fields',
    summary: 'Standard and custom contact fields with types and coverage',
    auth: 'secret',
    responses: {
      200: {
        description: 'The contacts of the project and their fields',
        schema: z.object({
          total: z.int().min(0),
          fields: z.array(
            z.object({
              name: z.string(),
              path: z.string(),
              standard: z.boolean(),
              type: fieldType,
              types: z.partialRecord(fieldType, z.int().min(0)).optional(),
              count: z.int().min(0),
              coverage: z.number().min(0).max(100),
            }),
          ),
        }),
      },
    },
  },
  {
    method: 'get',
    path: '/contacts/fields/{field}/values',
    summary: 'Distinct values of a custom field (cursor list)',
    auth: 'secret',
    query: cursorQuery,
    responses: {
      200: { description: 'A page of values', schema: cursorPageSchema(dataValue) },
      404: { description: 'No contact has the field' },
    },
  },
  {
    method: 'get',
    path: '/contacts/fields/{field}/usage',
    summary: 'Segments, campaigns and workflows that reference a field',
    auth: 'secret',
    responses: { 200: { description: 'The references', schema: usageSchema } },
  },
  {
    method: 'delete',
    path: '/contacts/fields/{field}',
    summary: 'Remove a custom field from every contact',
    auth: 'secret',
    responses: {
      200: {
        description: 'Removed',
        schema: z.object({
          success: z.literal(true),
          field: z.string(),
          affected: z.int().min(0),
        }),
      },
      404: { description: 'No contact has the field' },
    },
  },
  {
    method: 'post',
    path: '/contacts/import',
    summary: 'Import contacts from a CSV file (multipart, at most 5 MB)',
    auth: 'secret',
    body: z.object({
      file: z.string().describe('The CSV file; its header names an `email` column'),
    }),
    bodyContentType: 'multipart/form-data',
    responses: {
      202: { description: 'The import job, queued', schema: queuedJobSchema },
      400: { description: 'Not multipart/form-data, or a malformed multipart body' },
      413: { description: 'The file is larger than 5 MB' },
    },
  },
  {
    method: 'get',
    path: '/contacts/import/{jobId}',
    summary: 'Status of an import job',
    auth: 'secret',
    responses: {
      200: { description: 'The job', schema: jobSchema },
      404: { description: 'Unknown import job' },
    },
  },
  ...BULK_KINDS.map((kind): RouteDoc => ({
    method: 'post',
    path: `/contacts/${kind}`,
    summary: `Queue a ${kind.slice('bulk-'.length)} of up to 1,000 contacts`,
    auth: 'secret',
    body: bulkBody,
    responses: { 202: { description: 'The bulk job, queued', schema: queuedJobSchema } },
  })),
  {
    method: 'get',
    path: '/contacts/bulk/{jobId}',
    summary: 'Status of a bulk job',
    auth: 'secret',
    responses: {
      200: { description: 'The job', schema: jobSchema },
      404: { description: 'Unknown bulk job' },
    },
  },
  {
    method: 'post',
    path: '/v1/track',
    summary: 'Track an event for a contact (public or secret key)',
    auth: 'public-key',
    body: trackBody,
    responses: { 200: { description: 'The event was recorded', schema: trackAnswer } },
  },
  {
    method: 'post',
    path: '/events/track',
    summary: 'Track an event (dashboard alias of POST /v1/track)',
    auth: 'secret',
    body: trackBody,
    responses: { 200: { description: 'The event was recorded', schema: trackAnswer } },
  },
  {
    method: 'post',
    path: '/v1/verify',
    summary: 'Verify an email address',
    auth: 'key',
    body: VerifyBody,
    responses: {
      200: {
        description: 'The verification result',
        schema: z.object({ success: z.literal(true), data: verificationSchema }),
      },
    },
  },
  {
    method: 'get',
    path: '/events',
    summary: 'Tracked events, newest first (cursor list)',
    auth: 'secret',
    query: eventListQuery,
    responses: {
      200: { description: 'A page of events', schema: cursorPageSchema(trackedEventSchema) },
    },
  },
  {
    method: 'get',
    path: '/events/stats',
    summary: 'Event counts by name and by day (last 30 UTC days)',
    auth: 'secret',
    responses: {
      200: {
        description: 'The statistics',
        schema: z.object({
          total: z.int().min(0),
          names: z.array(z.object({ name: z.string(), count: z.int().min(0) })),
          daily: z.array(
            z.object({
              date: z.iso.date(),
              count: z.int().min(0),
              byName: z.record(z.string(), z.int().min(0)),
            }),
          ),
        }),
      },
    },
  },
  {
    method: 'get',
    path: '/events/names',
    summary: 'Distinct event names',
    auth: 'secret',
    responses: {
      200: {
        description: 'The names, sorted',
        schema: z.object({
          names: z.array(
            z.object({ name: z.string(), count: z.int().min(0), lastSeenAt: isoTimestamp }),
          ),
        }),
      },
    },
  },
  {
    method: 'get',
    path: '/events/contact/{contactId}',
    summary: "A contact's events (cursor list)",
    auth: 'secret',
    query: eventPageQuery,
    responses: {
      200: { description: 'A page of events', schema: cursorPageSchema(trackedEventSchema) },
      404: { description: 'CONTACT_NOT_FOUND' },
    },
  },
  {
    method: 'get',
    path: '/events/{eventName}/usage',
    summary: 'Workflows, segments and campaigns that reference an event name',
    auth: 'secret',
    responses: { 200: { description: 'The references', schema: usageSchema } },
  },
  {
    method: 'delete',
    path: '/events/{eventName}',
    summary: 'Delete every event with a name',
    auth: 'secret',
    responses: {
      200: {
        description: 'Deleted',
        schema: z.object({ success: z.literal(true), deleted: z.int().min(0) }),
      },
      404: { description: 'No event has this name' },
    },
  },
  ...(['unsubscribe', 'subscribe'] as const).flatMap((action): RouteDoc[] => [
    {
      method: 'get',
      path: `/${action}/{token}`,
      summary: `The ${action} page of a signed link (asks to confirm)`,
      auth: 'none',
      tags: ['subscription pages'],
      responses: pageAnswers,
    },
    {
      method: 'post',
      path: `/${action}/{token}`,
      summary:
        action === 'unsubscribe'
          ? 'Unsubscribe (RFC 8058 one-click, or the page’s button)'
          : 'Subscribe again (the page’s button)',
      auth: 'none',
      tags: ['subscription pages'],
      body: unsubscribeForm,
      bodyContentType: 'application/x-www-form-urlencoded',
      bodyRequired: false,
      responses: formAnswers,
    },
  ]),
  {
    method: 'get',
    path: '/manage/{token}',
    summary: 'The subscription state of a signed link, with a button to change it',
    auth: 'none',
    tags: ['subscription pages'],
    responses: pageAnswers,
  },
];
