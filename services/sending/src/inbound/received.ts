/**
 * Mail received for a verified domain of a project (issue "Inbound mail"): recorded as
 * EmailReceived (stream `inboundEmail-<id>`) on the contact of its sender, created when new
 * (unsubscribed, as a sender of /v1/send makes one), with the whole message; the `inboundEmails`
 * view lists them without their content. Activity shows `email.received`; workflows may start on
 * it.
 */
import {
  BILLING_CATEGORY_METADATA,
  type ContactsApi,
  type EmailReceivedEventData,
  entityIdOf,
  INBOUND_EMAIL_STREAM_CATEGORY,
} from '@stamp/contracts';
import {
  applyAtRevision,
  decisionAppend,
  type EventStore,
  newId,
  type RecordedEvent,
  type ViewDocument,
  type ViewStore,
} from '@stamp/platform';
import { ApiError } from '@stamp/http-kit';
import PostalMime from 'postal-mime';

import { bareMessageId } from '../sns/notifications.ts';

/** View collection of received emails (no content). */
export const INBOUND_EMAILS = 'inboundEmails';

/** A document of the `inboundEmails` view. Dates ISO 8601. */
export interface InboundEmailDocument extends ViewDocument {
  projectId: string;
  contactId: string;
  from: { name?: string; email: string };
  to: string[];
  subject: string;
  messageId: string | null;
  size: number;
  receivedAt: string;
  revision: number;
}

/** Stream id of a received email. */
export const inboundEmailStream = (id: string): string => `${INBOUND_EMAIL_STREAM_CATEGORY}-${id}`;

/**
 * Records `raw`, received for `to` (addresses of `projectId`'s verified domains), on the contact
 * of its sender. A message with no sender address, or one the contacts refuse, is dropped.
 * @returns the received email's id and the log position of its append, or null when dropped.
 */
export async function recordReceived(
  deps: { store: EventStore; contacts: ContactsApi },
  input: { projectId: string; to: string[]; envelopeFrom: string | null; raw: Buffer },
  correlationId: string,
): Promise<{ id: string; position: number } | null> {
  const parsed = await PostalMime.parse(input.raw);
  const from = parsed.from?.address ?? input.envelopeFrom ?? '';
  if (!from.includes('@')) return null;
  let contact: Awaited<ReturnType<ContactsApi['upsertRecipient']>>;
  try {
    contact = await deps.contacts.upsertRecipient({
      projectId: input.projectId,
      email: from,
      defaultSubscribed: false,
      correlationId,
    });
  } catch (error) {
    // A sender address the contacts refuse (RFC 5321 limits): the message is dropped, not
    // refused again and again.
    if (error instanceof ApiError && error.status < 500) return null;
    throw error;
  }
  const id = newId();
  const data: EmailReceivedEventData = {
    inboundEmailId: id,
    contactId: contact.contactId,
    from: {
      email: contact.email,
      ...(parsed.from?.name === undefined || parsed.from.name === ''
        ? {}
        : { name: parsed.from.name }),
    },
    to: input.to,
    subject: parsed.subject ?? '',
    ...(parsed.messageId === undefined ? {} : { messageId: bareMessageId(parsed.messageId) }),
    size: input.raw.length,
    raw: input.raw.toString('utf8'),
    receivedAt: new Date().toISOString(),
  };
  const { position } = await deps.store.append([
    decisionAppend(inboundEmailStream(id), -1, [{ type: 'EmailReceived', data }], {
      projectId: input.projectId,
      correlationId,
      subjectId: contact.contactId,
      [BILLING_CATEGORY_METADATA]: 'inbound',
    }),
  ]);
  return { id, position };
}

/** Projects EmailReceived into the `inboundEmails` view (idempotent by revision). */
export async function projectReceived(views: ViewStore, event: RecordedEvent): Promise<void> {
  if (event.type !== 'EmailReceived' || event.erased === true) return;
  const data = event.data as EmailReceivedEventData;
  await applyAtRevision(
    views.collection<InboundEmailDocument>(INBOUND_EMAILS),
    entityIdOf(event.streamId),
    event.revision,
    {
      $set: {
        projectId: event.metadata.projectId ?? '',
        contactId: data.contactId,
        from: data.from,
        to: data.to,
        subject: data.subject,
        messageId: data.messageId ?? null,
        size: data.size,
        receivedAt: data.receivedAt,
      },
    },
    true,
  );
}
