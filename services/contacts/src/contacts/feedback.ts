import { EMAIL_STREAM_CATEGORY } from '@stamp/contracts';
import { ApiError } from '@stamp/http-kit';
import type { RecordedEvent } from '@stamp/platform';

import type { ContactCommands } from './commands.ts';

/** Consumer group that unsubscribes the contacts whose address bounced or who complained. */
export const CONTACTS_FEEDBACK_GROUP = 'contacts-feedback';

/** Topics it reads: the emails (owner: sending service). */
export const CONTACTS_FEEDBACK_TOPICS = [EMAIL_STREAM_CATEGORY];

/**
 * Unsubscribes the contact of a hard bounce or a complaint (issue "Bounces and complaints"):
 * ContactUnsubscribed when it flips, nothing when it already is unsubscribed or was deleted since.
 * Idempotent.
 */
export async function unsubscribeOnFeedback(
  commands: ContactCommands,
  event: RecordedEvent,
): Promise<void> {
  if (event.type !== 'EmailBounced' && event.type !== 'EmailComplained') return;
  if (event.erased === true) return;
  const { projectId, subjectId: contactId } = event.metadata;
  if (projectId === undefined || contactId === undefined) return;
  try {
    await commands.updateContact(
      projectId,
      contactId,
      { subscribed: false },
      event.metadata.correlationId ?? event.id,
    );
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return;
    throw error;
  }
}
