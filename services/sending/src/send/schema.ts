import { emailAddress } from '@stamp/http-kit';
import { z } from 'zod';

import { headerText } from './header-text.ts';

/** RFC 5322 §3.6.8 field name: printable US-ASCII except colon. */
const FIELD_NAME = /^[\x21-\x39\x3b-\x7e]+$/;

const mailbox = z.object({
  name: headerText('Name', { max: 255 }).optional(),
  email: emailAddress,
});

const address = z.union([emailAddress, mailbox]);

const primitive = z.union([z.string(), z.number(), z.boolean()]);

const attachment = z
  .object({
    filename: headerText('Filename', { min: 1, max: 255 }),
    content: z.base64({ message: 'Content must be base64' }),
    contentType: headerText('Content type', { min: 1, max: 255 }).regex(
      /^[\w.+-]+\/[\w.+-]+(\s*;.*)?$/,
      { message: 'Invalid content type' },
    ),
    contentId: headerText('Content id', { min: 1, max: 255 }).optional(),
    disposition: z.enum(['attachment', 'inline']).optional(),
  })
  .superRefine((value, context) => {
    if (value.disposition === 'inline' && value.contentId === undefined) {
      context.addIssue({
        code: 'custom',
        path: ['contentId'],
        message: 'Inline attachments require a contentId',
      });
    }
  });

/**
 * Header fields Stamp writes itself: addressing, identity, MIME structure, signatures and
 * trace fields (RFC 5322 §3.6, RFC 2045, RFC 6376). A custom header may not set them.
 */
const STRUCTURAL_HEADERS = new Set([
  'from',
  'sender',
  'to',
  'cc',
  'bcc',
  'reply-to',
  'subject',
  'date',
  'message-id',
  'in-reply-to',
  'references',
  'return-path',
  'received',
  'mime-version',
  'content-type',
  'content-transfer-encoding',
  'content-disposition',
  'content-id',
  'dkim-signature',
  'arc-seal',
  'arc-message-signature',
  'arc-authentication-results',
  'authentication-results',
  'x-stamp-email-id',
  'list-unsubscribe',
  'list-unsubscribe-post',
]);

/**
 * Body of POST /v1/send (spec part 4, API reference "POST /v1/send"). The content rule (template
 * or subject and body) is checked here too, as a field error on `template`.
 */
export const sendBody = z
  .object({
    // The recipient cap is a configured limit, checked by the send command with its own message.
    to: z.union([address, z.array(address)]),
    subject: headerText('Subject', { min: 1, max: 998 }).optional(),
    body: z.string().min(1).optional(),
    template: z.string().min(1).max(100).optional(),
    from: address.optional(),
    name: headerText('Name', { max: 255 }).optional(),
    reply: emailAddress.optional(),
    subscribed: z.boolean().optional(),
    headers: z
      .record(
        z
          .string()
          .regex(FIELD_NAME, { message: 'Invalid header name' })
          .refine((name) => !STRUCTURAL_HEADERS.has(name.toLowerCase()), {
            message: 'This header is set by Stamp and cannot be given',
          }),
        headerText('Header values').max(998, {
          message: 'Header values are at most 998 characters',
        }),
      )
      .optional(),
    data: z
      .record(
        z.string(),
        z.union([
          primitive,
          z.null(),
          z.object({ value: primitive, persistent: z.boolean().optional() }),
        ]),
      )
      .optional(),
    attachments: z.array(attachment).max(10).optional(),
  })
  .superRefine((value, context) => {
    if (Array.isArray(value.to) && value.to.length === 0) {
      context.addIssue({
        code: 'custom',
        path: ['to'],
        message: 'At least one recipient is required',
      });
    }
    if (value.template === undefined && (value.subject === undefined || value.body === undefined)) {
      context.addIssue({
        code: 'custom',
        path: ['template'],
        message: 'Either template or both subject and body are required',
      });
    }
  });

/** A parsed /v1/send body. */
export type SendBody = z.infer<typeof sendBody>;
