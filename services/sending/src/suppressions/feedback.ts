import { type EmailBouncedEventData, entityIdOf } from '@stamp/contracts';
import type { RecordedEvent } from '@stamp/platform';

import type { SuppressionCommands } from './commands.ts';

/** Consumer group of the reactions to bounces (and, later, complaints). */
export const FEEDBACK_GROUP = 'sending-feedback';

/**
 * Puts the address of a hard bounce on the project's suppression list (API reference,
 * "Suppressions": reason HARD_BOUNCE), caused by the bounce event. Idempotent: an address already
 * suppressed stays as it is.
 */
export async function suppressOnBounce(
  commands: SuppressionCommands,
  event: RecordedEvent,
): Promise<void> {
  if (event.type !== 'EmailBounced' || event.erased === true) return;
  const projectId = event.metadata.projectId;
  if (projectId === undefined) return;
  const data = event.data as EmailBouncedEventData;
  await commands.suppress(
    {
      projectId,
      correlationId: event.metadata.correlationId ?? event.id,
      causationId: event.id,
    },
    {
      email: data.recipient,
      reason: 'HARD_BOUNCE',
      emailId: entityIdOf(event.streamId),
      ...(event.metadata.subjectId === undefined ? {} : { contactId: event.metadata.subjectId }),
    },
  );
}
