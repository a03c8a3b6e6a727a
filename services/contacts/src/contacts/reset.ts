/**
 * The contacts' part of a project reset (spec part 4, `POST /users/@me/projects/:id/reset`):
 * every contact the project had at the reset is deleted as `DELETE /contacts/:id` deletes one,
 * so the erasure of its personal data (crypto-shredding) and every service's reaction to
 * `ContactDeleted` follow; then the tracked-event views of the project are emptied.
 */
import { ApiError, deleteProjectDocuments, type ProjectResetNotice } from '@stamp/http-kit';
import type { ViewStore } from '@stamp/platform';

import {
  TRACKED_EVENT_BUCKETS_VIEW,
  TRACKED_EVENT_DAYS_VIEW,
  TRACKED_EVENT_NAMES_VIEW,
  TRACKED_EVENTS_VIEW,
} from '../events/views.ts';
import type { ContactCommands } from './commands.ts';
import { CONTACTS_VIEW, type ContactView } from './projection.ts';

/** Contacts read from the view per page. */
const PAGE_SIZE = 500;
/** Contacts deleted at once. */
const CONCURRENCY = 16;

/**
 * Deletes every contact of `reset.projectId` created at or before `reset.resetAt`, in pages of
 * the contacts view by id, then empties the project's tracked-event views. Idempotent: a contact
 * already deleted is skipped.
 * @throws whatever the event store throws (the reset event is then handled again).
 */
export async function eraseProjectContacts(
  commands: ContactCommands,
  views: ViewStore,
  reset: ProjectResetNotice,
): Promise<void> {
  const contacts = views.collection<ContactView>(CONTACTS_VIEW);
  let after = '';
  for (;;) {
    const page = await contacts.find(
      { projectId: reset.projectId, _id: { $gt: after }, createdAt: { $lte: reset.resetAt } },
      { sort: { _id: 1 }, limit: PAGE_SIZE },
    );
    for (let start = 0; start < page.length; start += CONCURRENCY) {
      await Promise.all(
        page.slice(start, start + CONCURRENCY).map(async (contact) => {
          try {
            await commands.deleteContact(reset.projectId, contact._id, reset.correlationId);
          } catch (error) {
            if (!(error instanceof ApiError && error.status === 404)) throw error;
          }
        }),
      );
    }
    const last = page.at(-1);
    if (last === undefined || page.length < PAGE_SIZE) break;
    after = last._id;
  }
  await deleteProjectDocuments(
    views,
    {
      [TRACKED_EVENTS_VIEW]: 'createdAt',
      [TRACKED_EVENT_BUCKETS_VIEW]: null,
      [TRACKED_EVENT_NAMES_VIEW]: null,
      [TRACKED_EVENT_DAYS_VIEW]: null,
    },
    reset,
  );
}
