import type { ContactDataInput, ContactValue } from '@stamp/contracts';
import { ApiError, badRequest, validationError } from '@stamp/http-kit';

import type { EventMailbox } from '../delivery/events.ts';
import type { SendBody } from './schema.ts';

/** A recipient as given: an email with an optional display name. */
export type Recipient = EventMailbox;

/** The recipients of a send in request order. */
export function recipientsOf(to: SendBody['to']): Recipient[] {
  const list = Array.isArray(to) ? to : [to];
  return list.map((entry) =>
    typeof entry === 'string'
      ? { email: entry }
      : { email: entry.email, ...(entry.name === undefined ? {} : { name: entry.name }) },
  );
}

/** The template fields a send may inherit. */
export interface TemplateDefaults {
  id: string;
  subject: string;
  body: string;
  type: 'TRANSACTIONAL' | 'MARKETING';
  from?: string;
  fromName?: string;
  replyTo?: string;
}

/** Content and sender of a send, after applying the template and the request's overrides. */
export interface ResolvedMessage {
  subject: string;
  body: string;
  from: EventMailbox;
  replyTo?: string;
  templateId?: string;
  marketing: boolean;
}

/**
 * Resolves subject, body, from and reply-to: explicit request fields override the template's.
 * The sender name is the `from` object's name, else the deprecated `name`, else the template's
 * `fromName`. Pure.
 * @throws ApiError 422 on `template` when content is missing, on `from` when no sender is known.
 */
export function resolveMessage(body: SendBody, template: TemplateDefaults | null): ResolvedMessage {
  const subject = body.subject ?? template?.subject;
  const html = body.body ?? template?.body;
  if (subject === undefined || html === undefined) {
    throw validationError([
      {
        field: 'template',
        message: 'Either template or both subject and body are required',
        code: 'custom',
      },
    ]);
  }
  let from: EventMailbox | undefined;
  if (typeof body.from === 'string') from = { email: body.from };
  else if (body.from !== undefined) from = { ...body.from };
  else if (template?.from !== undefined) from = { email: template.from };
  if (from === undefined) {
    throw validationError([
      {
        field: 'from',
        message: 'A from address is required when the template has none',
        code: 'custom',
      },
    ]);
  }
  const name = from.name ?? body.name ?? template?.fromName;
  if (name !== undefined && name !== '') from.name = name;
  else delete from.name;
  const replyTo = body.reply ?? template?.replyTo;
  return {
    subject,
    body: html,
    from,
    ...(replyTo === undefined ? {} : { replyTo }),
    ...(template === null ? {} : { templateId: template.id }),
    marketing: template?.type === 'MARKETING',
  };
}

/**
 * Splits request data (spec part 2): `persistent` is what the contact stores (non-persistent
 * `{value, persistent: false}` removed, other `{value}` unwrapped, plus the recipient's name as
 * `name`); `transient` holds the send-only values. Pure.
 */
export function splitData(
  data: SendBody['data'],
  recipient: Recipient,
): {
  persistent: Record<string, ContactDataInput>;
  transient: Record<string, ContactValue>;
} {
  const persistent: [string, ContactDataInput][] = [];
  const transient: [string, ContactValue][] = [];
  for (const [key, value] of Object.entries(data ?? {})) {
    if (value !== null && typeof value === 'object') {
      if (value.persistent === false) transient.push([key, value.value]);
      else persistent.push([key, value.value]);
    } else {
      persistent.push([key, value]);
    }
  }
  if (recipient.name !== undefined && recipient.name !== '')
    persistent.push(['name', recipient.name]);
  // Entries, not assignments: every key is an own data property, whatever its name.
  return { persistent: Object.fromEntries(persistent), transient: Object.fromEntries(transient) };
}

/**
 * Checks the attachment limits (spec part 6 of /v1/send, part 8): decoded total at most
 * `attachmentBytes` (422 on `attachments`), whole-message estimate at most `messageBytes` (413).
 * Returns the estimate in bytes. Pure.
 */
export function checkSize(
  body: SendBody,
  resolved: { subject: string; body: string },
  limits: { attachmentBytes: number; messageBytes: number },
): number {
  let decoded = 0;
  let encoded = 0;
  for (const attachment of body.attachments ?? []) {
    decoded += Buffer.byteLength(attachment.content, 'base64');
    encoded += attachment.content.length;
  }
  if (decoded > limits.attachmentBytes) {
    throw validationError([
      {
        field: 'attachments',
        message: `Attachments may total at most ${limits.attachmentBytes} bytes`,
        code: 'too_big',
      },
    ]);
  }
  const headerBytes = Object.entries(body.headers ?? {}).reduce(
    (sum, [name, value]) => sum + name.length + value.length + 4,
    0,
  );
  // HTML goes out quoted-printable or base64 (about 4/3); attachments are already base64.
  const estimate =
    Math.ceil((Buffer.byteLength(resolved.body) * 4) / 3) +
    Buffer.byteLength(resolved.subject) +
    headerBytes +
    encoded +
    2048;
  if (estimate > limits.messageBytes) {
    throw new ApiError(
      413,
      'PAYLOAD_TOO_LARGE',
      `The message may be at most ${limits.messageBytes} bytes`,
    );
  }
  return estimate;
}

/**
 * Refuses a MARKETING template to an unsubscribed contact (API reference, "POST /v1/send").
 * @throws ApiError 400 BAD_REQUEST.
 */
export function assertMayReceive(
  marketing: boolean,
  contact: { email: string; subscribed: boolean },
): void {
  if (marketing && !contact.subscribed) {
    throw badRequest(`${contact.email} is unsubscribed and cannot receive marketing email`);
  }
}

/**
 * Headers of one email: the request's custom headers, plus RFC 8058 one-click unsubscribe
 * headers for marketing mail. Pure.
 */
export function emailHeaders(
  custom: Record<string, string> | undefined,
  marketing: boolean,
  unsubscribeUrl: string,
): Record<string, string> {
  const headers: Record<string, string> = { ...(custom ?? {}) };
  if (marketing) {
    headers['List-Unsubscribe'] = `<${unsubscribeUrl}>`;
    headers['List-Unsubscribe-Post'] = 'List-Unsubscribe=One-Click';
  }
  return headers;
}
