import {
  deleteOutboxMessage,
  type RecordedEvent,
  TIMERS_COLLECTION,
  type TimerDocument,
  type ViewStore,
  applyAtRevision,
  derivedId,
} from '@stamp/platform';

import { INBOUND_EMAILS } from '../inbound/received.ts';
import { SUPPRESSIONS } from '../suppressions/projection.ts';
import { EMAILS, type EmailDocument, laterStatus } from '../views.ts';
import type { EmailEvent } from './events.ts';

/** Deterministic id of the retry timer of `emailId`'s attempt `attempt`. */
export const retryTimerId = (emailId: string, attempt: number): string =>
  derivedId(`${emailId}:retry:${attempt}`);

/**
 * Projects email events into the `emails` view (idempotent by stream revision; opens and clicks
 * raise the status by rank and count a person's and automated ones apart) and, for
 * EmailDeferred, writes the retry timer into the `timers` view (only when the view moved, so a
 * replay does not re-arm a fired timer; a re-armed one would fire a duplicate event id anyway).
 */
export async function projectEmail(views: ViewStore, event: RecordedEvent): Promise<void> {
  // The recipient was deleted: its emails left the view with it (see forgetContactEmails).
  if (event.erased === true) return;
  const emails = views.collection(EMAILS);
  const emailId = event.streamId.slice('email-'.length);
  const typed = { type: event.type, data: event.data } as EmailEvent;
  switch (typed.type) {
    case 'EmailQueued': {
      const data = typed.data;
      await applyAtRevision(
        emails,
        emailId,
        event.revision,
        {
          $set: {
            projectId: event.metadata.projectId ?? '',
            contactId: data.contactId,
            to: data.to,
            from: data.from,
            subject: data.subject,
            templateId: data.templateId ?? null,
            campaignId: data.campaignId ?? null,
            workflowId: data.workflowId ?? null,
            sandbox: data.sandbox,
            status: 'QUEUED',
            attempts: 0,
            nextRetryAt: null,
            createdAt: event.createdAt,
            sentAt: null,
            messageId: null,
            error: null,
          },
        },
        true,
      );
      return;
    }
    case 'EmailDeferred': {
      await applyAtRevision(
        emails,
        emailId,
        event.revision,
        {
          $set: {
            attempts: typed.data.attempt,
            nextRetryAt: typed.data.retryAt,
            error: typed.data.error,
          },
        },
        false,
      );
      // Written on every delivery of the event, even when the email view already reflects it: a
      // timer that fired before is refused as a duplicate event and only removed again.
      const timer: TimerDocument = {
        _id: retryTimerId(emailId, typed.data.attempt),
        dueAt: Date.parse(typed.data.retryAt),
        streamId: event.streamId,
        event: { type: 'EmailRetryDue', data: { attempt: typed.data.attempt } },
      };
      await views
        .collection<TimerDocument>(TIMERS_COLLECTION)
        .replaceOne({ _id: timer._id }, timer, { upsert: true });
      return;
    }
    case 'EmailSent':
      await applyAtRevision(
        emails,
        emailId,
        event.revision,
        {
          $set: {
            status: 'SENT',
            sentAt: typed.data.sentAt,
            messageId: typed.data.messageId,
            nextRetryAt: null,
            error: null,
          },
        },
        false,
      );
      return;
    case 'EmailFailed':
      await applyAtRevision(
        emails,
        emailId,
        event.revision,
        { $set: { status: 'FAILED', error: typed.data.error, nextRetryAt: null } },
        false,
      );
      return;
    case 'EmailRetryDue':
      await applyAtRevision(emails, emailId, event.revision, { $set: {} }, false);
      return;
    case 'EmailBounced': {
      // A DSN may come after a complaint, which ranks higher.
      const current = await views.collection<EmailDocument>(EMAILS).findOne({ _id: emailId });
      await applyAtRevision(
        emails,
        emailId,
        event.revision,
        {
          $set: {
            status: laterStatus(current?.status, 'BOUNCED'),
            error: typed.data.diagnostic,
            nextRetryAt: null,
          },
        },
        false,
      );
      return;
    }
    case 'EmailComplained': {
      const current = await views.collection<EmailDocument>(EMAILS).findOne({ _id: emailId });
      await applyAtRevision(
        emails,
        emailId,
        event.revision,
        { $set: { status: laterStatus(current?.status, 'COMPLAINED') } },
        false,
      );
      return;
    }
    case 'EmailSuppressed':
      await applyAtRevision(
        emails,
        emailId,
        event.revision,
        {
          $set: {
            status: 'FAILED',
            suppressed: typed.data.reason,
            error: `The address is suppressed (${typed.data.reason})`,
            nextRetryAt: null,
          },
        },
        false,
      );
      return;
    case 'EmailOpened':
    case 'EmailClicked': {
      const open = typed.type === 'EmailOpened';
      const at = typed.type === 'EmailOpened' ? typed.data.openedAt : typed.data.clickedAt;
      const kind = open ? 'Opens' : 'Clicks';
      const [first, last] = open
        ? (['firstOpenedAt', 'lastOpenedAt'] as const)
        : (['firstClickedAt', 'lastClickedAt'] as const);
      // The status moves up the ranks only (API reference, "Enums"); this group is the
      // document's only writer, so the read and the write cannot interleave with another.
      const current = await views.collection<EmailDocument>(EMAILS).findOne({ _id: emailId });
      await applyAtRevision(
        emails,
        emailId,
        event.revision,
        {
          $set: { status: laterStatus(current?.status, open ? 'OPENED' : 'CLICKED') },
          $inc: { [typed.data.automated ? `automated${kind}` : `human${kind}`]: 1 },
          $min: { [first]: at },
          $max: { [last]: at },
        },
        false,
      );
      return;
    }
    default:
      return;
  }
}

/**
 * On ContactDeleted (stream `contact-<id>`, owned by the contacts service), removes the
 * contact's emails from the `emails` view and their captured copies (list documents and message
 * parts) from the local outbox, the suppressions its bounces and complaints made and the emails
 * it sent to the project's domains: they hold
 * its address and messages (architecture brief, "Privacy"; their events are erased with it).
 * Idempotent.
 */
export async function forgetContactEmails(views: ViewStore, event: RecordedEvent): Promise<void> {
  if (event.type !== 'ContactDeleted') return;
  const contactId = event.streamId.slice(event.streamId.indexOf('-') + 1);
  const emails = views.collection(EMAILS);
  for (const email of await emails.find({ contactId })) {
    await deleteOutboxMessage(views, email._id);
  }
  await emails.deleteMany({ contactId });
  await views.collection(SUPPRESSIONS).deleteMany({ contactId });
  await views.collection(INBOUND_EMAILS).deleteMany({ contactId });
}
