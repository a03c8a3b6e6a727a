/**
 * Projection of contact streams into the `contacts` view (architecture brief, "Idempotent
 * projections"): each document stores the stream revision it reflects; an event whose revision is
 * not newer changes nothing; ContactDeleted removes the document.
 */
import {
  DuplicateKeyError,
  type EventStore,
  type RecordedEvent,
  type ViewCollection,
  type ViewDocument,
  type ViewStore,
} from '@stamp/platform';

import { recordFieldChanges } from '../fields/projection.ts';
import type { ContactData } from './data.ts';
import { type ContactEvent, evolve, type ContactState } from './events.ts';

/** Name of the contacts view. */
export const CONTACTS_VIEW = 'contacts';

/** A document of the `contacts` view (`_id` = contact id; dates ISO 8601). */
export interface ContactView extends ViewDocument {
  projectId: string;
  email: string;
  subscribed: boolean;
  data: ContactData;
  createdAt: string;
  updatedAt: string;
  /** Revision of the contact stream this document reflects. */
  revision: number;
}

/** The contacts view collection. */
export const contactsView = (views: ViewStore): ViewCollection<ContactView> =>
  views.collection<ContactView>(CONTACTS_VIEW);

/**
 * Creates the indexes of the contacts view: {projectId}, {projectId, email}, those of the
 * list's filter and orders (GET /contacts `subscribed`, `sort=createdAt|updatedAt`):
 * {projectId, subscribed}, {projectId, createdAt}, {projectId, updatedAt}, and a substring index
 * of `email` for `GET /contacts?search=` (case-insensitive literal substring). Email uniqueness
 * is enforced by the claim streams of the event store, not by the view: across streams the view
 * may briefly lag one contact's release of an address behind another contact's claim of it.
 */
export async function createContactIndexes(views: ViewStore): Promise<void> {
  const contacts = contactsView(views);
  await contacts.createIndex({ projectId: 1 });
  await contacts.createIndex({ projectId: 1, email: 1 });
  await contacts.createIndex({ projectId: 1, subscribed: 1 });
  await contacts.createIndex({ projectId: 1, createdAt: 1 });
  await contacts.createIndex({ projectId: 1, updatedAt: 1 });
  await contacts.createIndex({ email: 1 }, { substring: true });
}

/**
 * Applies one contact-stream event to the view. Idempotent: a replayed event changes nothing.
 */
export async function projectContactEvent(views: ViewStore, event: RecordedEvent): Promise<void> {
  const contacts = contactsView(views);
  const contactId = event.streamId.slice(event.streamId.indexOf('-') + 1);
  const typed = event as unknown as RecordedEvent & ContactEvent;
  // The data of a deleted contact was erased; its ContactDeleted follows.
  if (event.erased === true) return;
  if (typed.type === 'ContactDeleted') {
    const deleted = await contacts.findOne({ _id: contactId, revision: { $lt: event.revision } });
    if (deleted === null) return;
    const { deletedCount } = await contacts.deleteOne({
      _id: contactId,
      revision: deleted.revision,
    });
    if (deletedCount === 1) await recordFieldChanges(views, deleted.projectId, deleted.data, null);
    return;
  }
  const current = await contacts.findOne({ _id: contactId });
  if (current !== null && current.revision >= event.revision) return;
  if (typed.type === 'ContactCreated') {
    if (current !== null) return;
    const document: ContactView = {
      _id: contactId,
      projectId: event.metadata.projectId ?? '',
      email: typed.data.email,
      subscribed: typed.data.subscribed,
      data: { ...typed.data.data },
      createdAt: event.createdAt,
      updatedAt: event.createdAt,
      revision: event.revision,
    };
    try {
      await contacts.insertOne(document);
      await recordFieldChanges(views, document.projectId, null, document.data);
    } catch (error) {
      if (
        error instanceof DuplicateKeyError &&
        (await contacts.findOne({ _id: contactId })) !== null
      ) {
        return;
      }
      throw error;
    }
    return;
  }
  if (current === null) return;
  const before: ContactState = {
    status: 'active',
    email: current.email,
    subscribed: current.subscribed,
    data: current.data,
  };
  const after = evolve(before, typed);
  const { matchedCount } = await contacts.updateOne(
    { _id: contactId, revision: current.revision },
    {
      $set: {
        email: after.email,
        subscribed: after.subscribed,
        data: after.data,
        updatedAt: event.createdAt,
        revision: event.revision,
      },
    },
  );
  if (matchedCount === 1 && typed.type === 'ContactDataChanged') {
    await recordFieldChanges(views, current.projectId, current.data, after.data);
  }
}

/**
 * Crypto-shredding of deleted contacts (architecture brief, "Privacy"): on ContactDeleted the
 * contact's key is destroyed, so its events (contact, tracked events, emails) become unreadable
 * in the log. Idempotent.
 */
export async function eraseDeletedContact(store: EventStore, event: RecordedEvent): Promise<void> {
  if (event.type !== 'ContactDeleted') return;
  await store.eraseSubject(event.streamId.slice(event.streamId.indexOf('-') + 1));
}
