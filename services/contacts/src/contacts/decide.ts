/**
 * Deciders of the Contact aggregate: pure functions from a state and a command to the events of
 * the contact stream (spec parts 2 and 3). Claim-stream events are added by the command handler.
 */
import { conflict, notFound } from '@stamp/http-kit';

import { applyPatch, type DataPatch, isEmptyPatch } from './data.ts';
import type { ContactEvent, ContactState } from './events.ts';

/** Creates a contact with a normalised email. */
export interface CreateContact {
  type: 'CreateContact';
  email: string;
  subscribed: boolean;
  patch: DataPatch;
}

/** Updates an existing contact; absent fields stay as they are. */
export interface UpdateContact {
  type: 'UpdateContact';
  /** New normalised email. */
  email?: string;
  subscribed?: boolean;
  patch?: DataPatch;
}

/** Deletes a contact. */
export interface DeleteContact {
  type: 'DeleteContact';
}

/** Any contact command. */
export type ContactCommand = CreateContact | UpdateContact | DeleteContact;

const contactNotFound = () => notFound('CONTACT_NOT_FOUND', 'Contact not found');

/**
 * Events a command causes on the contact stream; [] when nothing changes.
 * - CreateContact on an absent contact: ContactCreated (data by the rules of part 2).
 * - UpdateContact: ContactEmailChanged, ContactDataChanged (only the keys that change),
 *   ContactSubscribed / ContactUnsubscribed only on a flip (part 3).
 * - DeleteContact: ContactDeleted.
 * @throws ApiError 404 CONTACT_NOT_FOUND when updating or deleting an absent or deleted contact.
 * @throws ApiError 409 CONFLICT when creating a contact whose stream already exists.
 * @throws ApiError 422 VALIDATION_ERROR when the data would exceed 100 keys.
 */
export function decide(state: ContactState, command: ContactCommand): ContactEvent[] {
  switch (command.type) {
    case 'CreateContact': {
      if (state.status !== 'none') throw conflict('Contact already exists');
      const { data } = applyPatch({}, command.patch);
      return [
        {
          type: 'ContactCreated',
          data: { email: command.email, subscribed: command.subscribed, data },
        },
      ];
    }
    case 'UpdateContact': {
      if (state.status !== 'active') throw contactNotFound();
      const events: ContactEvent[] = [];
      if (command.email !== undefined && command.email !== state.email) {
        events.push({
          type: 'ContactEmailChanged',
          data: { from: state.email, to: command.email },
        });
      }
      if (command.patch !== undefined) {
        const { changes } = applyPatch(state.data, command.patch);
        if (!isEmptyPatch(changes)) events.push({ type: 'ContactDataChanged', data: changes });
      }
      if (command.subscribed !== undefined && command.subscribed !== state.subscribed) {
        events.push({
          type: command.subscribed ? 'ContactSubscribed' : 'ContactUnsubscribed',
          data: {},
        });
      }
      return events;
    }
    case 'DeleteContact':
      if (state.status !== 'active') throw contactNotFound();
      return [{ type: 'ContactDeleted', data: {} }];
    default:
      return [];
  }
}
