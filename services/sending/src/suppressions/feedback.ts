import {
  type EmailBouncedEventData,
  type EmailComplainedEventData,
  entityIdOf,
} from '@stamp/contracts';
import type { RecordedEvent } from '@stamp/platform';

import type { SuppressionCommands } from './commands.ts';

/** Consumer group of the reactions to bounces and complaints. */
export const FEEDBACK_GROUP = 'sending-feedback';

/**
 * Puts the address of a hard bounce or a complaint on the project's suppression list (API
 * reference, "Suppressions": reason HARD_BOUNCE or COMPLAINT), caused by that event. Idempotent:
 * an address already suppressed stays as it is.
 */
export async function suppressOnFeedback(
  commands: SuppressionCommands,
  event: RecordedEvent,
): Promise<void> {
  if (event.type !== 'EmailBounced' && event.type !== 'EmailComplained') return;
  if (event.erased === true) return;
  const projectId = event.metadata.projectId;
  if (projectId === undefined) return;
  const data = event.data as EmailBouncedEventData | EmailComplainedEventData;
  await commands.suppress(
    {
      projectId,
      correlationId: event.metadata.correlationId ?? event.id,
      causationId: event.id,
    },
    {
      email: data.recipient,
      reason: event.type === 'EmailBounced' ? 'HARD_BOUNCE' : 'COMPLAINT',
      emailId: entityIdOf(event.streamId),
      ...(event.metadata.subjectId === undefined ? {} : { contactId: event.metadata.subjectId }),
    },
  );
}
