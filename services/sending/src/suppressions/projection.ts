import { entityIdOf } from '@stamp/contracts';
import {
  applyAtRevision,
  type RecordedEvent,
  type ViewDocument,
  type ViewStore,
} from '@stamp/platform';

import type { SuppressionEvent, SuppressionReason } from './events.ts';

/** View collection of the projects' suppression lists. */
export const SUPPRESSIONS = 'suppressions';

/**
 * A document of the `suppressions` view (`_id` = {@link suppressionId}); `active` false once the
 * suppression was removed (kept, so that the revision guard holds). Dates ISO 8601.
 */
export interface SuppressionDocument extends ViewDocument {
  projectId: string;
  email: string;
  reason: SuppressionReason;
  emailId: string | null;
  contactId: string | null;
  createdAt: string;
  active: boolean;
  revision: number;
}

/** Projects suppression events into the `suppressions` view (idempotent by stream revision). */
export async function projectSuppression(views: ViewStore, event: RecordedEvent): Promise<void> {
  // Erased with its contact: the document went with the contact (see forgetContactEmails).
  if (event.erased === true) return;
  const collection = views.collection<SuppressionDocument>(SUPPRESSIONS);
  const id = entityIdOf(event.streamId);
  const typed = { type: event.type, data: event.data } as SuppressionEvent;
  if (typed.type === 'SuppressionAdded') {
    await applyAtRevision(
      collection,
      id,
      event.revision,
      {
        $set: {
          projectId: event.metadata.projectId ?? '',
          email: typed.data.email,
          reason: typed.data.reason,
          emailId: typed.data.emailId ?? null,
          contactId: typed.data.contactId ?? null,
          createdAt: event.createdAt,
          active: true,
        },
      },
      true,
    );
  } else if (typed.type === 'SuppressionRemoved') {
    await applyAtRevision(collection, id, event.revision, { $set: { active: false } }, false);
  }
}

/** The indexes of the list and of the delivery check. */
export async function createSuppressionIndexes(views: ViewStore): Promise<void> {
  await views.collection(SUPPRESSIONS).createIndex({ projectId: 1, active: 1, createdAt: -1 });
}
