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

import { FieldCounts } from '../fields/projection.ts';
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
 * of `email` keeping `projectId` beside it, for `GET /contacts?search=` (case-insensitive literal
 * substring). Email uniqueness
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
  await contacts.createIndex({ projectId: 1, email: 1 }, { substring: true });
}

/** The contact id of a contact stream's event. */
const contactIdOf = (event: RecordedEvent): string =>
  event.streamId.slice(event.streamId.indexOf('-') + 1);

/**
 * Applies contact-stream events (a batch of the bus, in log order; or one event) to the view:
 * the documents of the batch's contacts are read at once, the events applied to them in memory,
 * each changed document written once with a guard on the revision it was read at, and the field
 * counters of the applied events summed and written once. Idempotent: an event whose revision is
 * not newer than its document's changes nothing, and a write whose guard fails (the document
 * moved meanwhile) counts none of its field changes.
 */
export async function projectContactEvents(
  views: ViewStore,
  events: readonly RecordedEvent[],
): Promise<void> {
  const contacts = contactsView(views);
  // The data of a deleted contact was erased; its ContactDeleted follows.
  const live = events.filter((event) => event.erased !== true);
  if (live.length === 0) return;
  const ids = [...new Set(live.map(contactIdOf))];
  const stored = new Map<string, ContactView>();
  for (const document of await contacts.find({ _id: { $in: ids } })) {
    stored.set(document._id, document);
  }
  /** Each touched contact: its document after the batch (null: deleted), its field changes. */
  const touched = new Map<
    string,
    {
      projectId: string;
      document: ContactView | null;
      changes: [ContactData | null, ContactData | null][];
    }
  >();
  for (const event of live) {
    const contactId = contactIdOf(event);
    const entry = touched.get(contactId);
    const current = entry === undefined ? (stored.get(contactId) ?? null) : entry.document;
    const changes = entry?.changes ?? [];
    const typed = event as unknown as RecordedEvent & ContactEvent;
    if (current !== null && current.revision >= event.revision) continue;
    if (typed.type === 'ContactDeleted') {
      if (current === null) continue;
      changes.push([current.data, null]);
      touched.set(contactId, { projectId: current.projectId, document: null, changes });
    } else if (typed.type === 'ContactCreated') {
      // Created once: not again after the document exists or was deleted in this batch.
      if (current !== null || entry !== undefined) continue;
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
      changes.push([null, document.data]);
      touched.set(contactId, { projectId: document.projectId, document, changes });
    } else {
      if (current === null) continue;
      const before: ContactState = {
        status: 'active',
        email: current.email,
        subscribed: current.subscribed,
        data: current.data,
      };
      const after = evolve(before, typed);
      if (typed.type === 'ContactDataChanged') changes.push([current.data, after.data]);
      touched.set(contactId, {
        projectId: current.projectId,
        document: {
          ...current,
          email: after.email,
          subscribed: after.subscribed,
          data: after.data,
          updatedAt: event.createdAt,
          revision: event.revision,
        },
        changes,
      });
    }
  }
  const fields = new FieldCounts();
  for (const [contactId, { projectId, document, changes }] of touched) {
    const before = stored.get(contactId);
    let applied: boolean;
    if (document === null) {
      // Created and deleted within the batch: nothing to write, both changes counted.
      applied =
        before === undefined ||
        (await contacts.deleteOne({ _id: contactId, revision: before.revision })).deletedCount ===
          1;
    } else if (before === undefined) {
      try {
        await contacts.insertOne(document);
        applied = true;
      } catch (error) {
        if (!(error instanceof DuplicateKeyError)) throw error;
        applied = false;
      }
    } else {
      const { matchedCount } = await contacts.replaceOne(
        { _id: contactId, revision: before.revision },
        document,
      );
      applied = matchedCount === 1;
    }
    if (!applied) continue;
    for (const [from, to] of changes) fields.add(projectId, from, to);
  }
  await fields.write(views);
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
