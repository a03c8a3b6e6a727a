/**
 * Events of the Contact aggregate (stream `contact-<id>`) and of the per-project email claim
 * (stream `contactEmail-<projectId>.<sha256 of the normalised email>`), their states and `evolve`.
 * Spec parts 2 and 3; architecture brief, "Unique email per project".
 */
import { createHash } from 'node:crypto';

import type { ContactData, DataPatch } from './data.ts';

/** Stream category of contacts. */
export const CONTACT_CATEGORY = 'contact';
/** Stream category of email claims. */
export const CLAIM_CATEGORY = 'contactEmail';

/** A contact was created with its first email, subscription and data. */
export interface ContactCreated {
  type: 'ContactCreated';
  data: { email: string; subscribed: boolean; data: ContactData };
}
/** The email of a contact changed (normalised addresses). */
export interface ContactEmailChanged {
  type: 'ContactEmailChanged';
  data: { from: string; to: string };
}
/** Data keys were set or removed. */
export interface ContactDataChanged {
  type: 'ContactDataChanged';
  data: DataPatch;
}
/** The contact flipped to subscribed (spec event contact.subscribed). */
export interface ContactSubscribed {
  type: 'ContactSubscribed';
  data: Record<string, never>;
}
/** The contact flipped to unsubscribed (spec event contact.unsubscribed). */
export interface ContactUnsubscribed {
  type: 'ContactUnsubscribed';
  data: Record<string, never>;
}
/** The contact was deleted. */
export interface ContactDeleted {
  type: 'ContactDeleted';
  data: Record<string, never>;
}

/** Any event of a contact stream. */
export type ContactEvent =
  | ContactCreated
  | ContactEmailChanged
  | ContactDataChanged
  | ContactSubscribed
  | ContactUnsubscribed
  | ContactDeleted;

/** State of a contact folded from its events. `status` `none` = stream absent. */
export interface ContactState {
  status: 'none' | 'active' | 'deleted';
  email: string;
  subscribed: boolean;
  data: ContactData;
}

/** State before the first event. */
export const initialContact = (): ContactState => ({
  status: 'none',
  email: '',
  subscribed: false,
  data: {},
});

/** Applies one contact event (unknown types are ignored). */
export function evolve(state: ContactState, event: ContactEvent): ContactState {
  switch (event.type) {
    case 'ContactCreated':
      return {
        status: 'active',
        email: event.data.email,
        subscribed: event.data.subscribed,
        data: { ...event.data.data },
      };
    case 'ContactEmailChanged':
      return { ...state, email: event.data.to };
    case 'ContactDataChanged': {
      // Entries, not assignments: every key is an own data property, whatever its name.
      const unset = new Set(event.data.unset);
      const data: ContactData = Object.fromEntries([
        ...Object.entries(state.data).filter(([key]) => !unset.has(key)),
        ...Object.entries(event.data.set),
      ]);
      return { ...state, data };
    }
    case 'ContactSubscribed':
      return { ...state, subscribed: true };
    case 'ContactUnsubscribed':
      return { ...state, subscribed: false };
    case 'ContactDeleted':
      return { ...state, status: 'deleted', data: {} };
    default:
      return state;
  }
}

/** The email was claimed by a contact. */
export interface EmailClaimed {
  type: 'EmailClaimed';
  data: { contactId: string };
}
/** The contact holding the email released it (email change or deletion). */
export interface EmailReleased {
  type: 'EmailReleased';
  data: { contactId: string };
}
/** Any event of a claim stream. */
export type ClaimEvent = EmailClaimed | EmailReleased;

/** Holder of an email claim: the contact id, or null when free. */
export interface ClaimState {
  contactId: string | null;
}

/** Applies one claim event. */
export function evolveClaim(state: ClaimState, event: ClaimEvent): ClaimState {
  switch (event.type) {
    case 'EmailClaimed':
      return { contactId: event.data.contactId };
    case 'EmailReleased':
      return { contactId: null };
    default:
      return state;
  }
}

/** Stream id of a contact. */
export const contactStreamId = (contactId: string): string => `${CONTACT_CATEGORY}-${contactId}`;

/** Stream id of the claim of a normalised email in a project. */
export function claimStreamId(projectId: string, email: string): string {
  const hash = createHash('sha256').update(email).digest('hex');
  return `${CLAIM_CATEGORY}-${projectId}.${hash}`;
}
