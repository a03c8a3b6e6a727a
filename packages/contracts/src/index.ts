/**
 * Contracts between services: the command interfaces one service offers another (called
 * in-process in embedded mode, over the service's internal HTTP API in distributed mode) and the
 * types they share. Services import each other only through these.
 */

import type { MemberRole } from './permissions.ts';

/** A role in a project (API reference, "Enums"). */
export type { MemberRole };

/** The caller of a request, resolved from its API key by the gateway (spec part 5). */
export interface Caller {
  /** The project acted on; empty on a user's own routes (`/users/@me`, its project list). */
  projectId: string;
  /**
   * `public` for pk_ keys, `secret` for sk_ keys and for a member's session, which acts on its
   * project with the secret key's access, within its role.
   */
  keyKind: 'public' | 'secret';
  /** The signed-in user, when the caller authenticated with a session cookie. */
  userId?: string;
  /** That user's role in `projectId`. */
  role?: MemberRole;
  /** Request id (UUID), also the correlation id of the events the request causes. */
  requestId: string;
}

/**
 * Read-your-writes (architecture brief): resolves once every view reflects log position
 * `position`, or after the bound (2 s by default) has passed.
 */
export type AwaitViews = (position: number) => Promise<void>;

/** A primitive contact data value (spec part 2, rule 1). */
export type ContactValue = string | number | boolean;

/**
 * A contact data value as a client sends it: primitive (stored), null (deletes the key), empty
 * string (ignored), or, on /v1/send only, `{value, persistent: false}` (used for that send only).
 */
export type ContactDataInput = ContactValue | null | { value: ContactValue; persistent?: boolean };

/** Input of {@link ContactsApi.upsertRecipient}. */
export interface UpsertRecipientInput {
  projectId: string;
  email: string;
  /** Raw `data` of the request; the contacts service applies the rules of spec part 2. */
  data?: Record<string, ContactDataInput | undefined>;
  /** Explicit subscription state; when absent a new contact gets `defaultSubscribed`. */
  subscribed?: boolean;
  /** Subscription of a new contact when `subscribed` is absent: false for send, true for track. */
  defaultSubscribed: boolean;
  correlationId: string;
}

/** Result of {@link ContactsApi.upsertRecipient}. */
export interface UpsertRecipientResult {
  contactId: string;
  email: string;
  subscribed: boolean;
  /** Stored data after the upsert. */
  data: Record<string, ContactValue>;
  isNew: boolean;
  /** Log position of the last event appended (0 when nothing changed). */
  position: number;
}

/** The contacts service's command API used by sending and tracking. */
export interface ContactsApi {
  /**
   * Creates or updates the contact with this email in the project (unique per project).
   * @throws Error subclasses with `status` 422 for an invalid email.
   */
  upsertRecipient(input: UpsertRecipientInput): Promise<UpsertRecipientResult>;
}

/** A verified (or sandbox) sending domain with its DKIM key (RFC 6376). */
export interface SenderDomain {
  domain: string;
  verified: boolean;
  /**
   * Host of the domain's return path (`<returnPathSubdomain>.<domain>`, whose MX points at
   * Stamp's inbound listener): the envelope sender of its email is a VERP address there.
   */
  returnPath: string;
  dkim: { domainName: string; keySelector: string; privateKey: string };
}

/** The domains service's query API used by sending and templates. */
export interface DomainsApi {
  /**
   * The project's domain that `address` belongs to (exact domain match, case-insensitive), or
   * null when the project has no such domain.
   */
  senderDomain(projectId: string, address: string): Promise<SenderDomain | null>;
  /**
   * The project whose verified domain `domain` is (exact, case-insensitive), or null: mail
   * addressed to that domain is received for that project.
   */
  receivingDomain(domain: string): Promise<{ projectId: string } | null>;
}

/** Kind of API key (spec part 5). */
export type KeyKind = 'public' | 'secret';

/** The accounts service's key look-up used by the gateway. */
export interface KeysApi {
  /** The project and kind of an API key, or null when the key is unknown or was replaced. */
  resolveKey(key: string): Promise<{ projectId: string; kind: KeyKind } | null>;
  /**
   * The user of a session token and their role in `projectId` (null: the user is not a member;
   * `projectId` null: no project asked for), or null when the token is invalid, expired or its
   * user unknown. `renewed` is a fresh token when this one is due for renewal.
   */
  resolveSession(token: string, projectId: string | null): Promise<SessionResolution | null>;
}

/** What {@link KeysApi.resolveSession} answers for a valid session. */
export interface SessionResolution {
  userId: string;
  role: MemberRole | null;
  /** A fresh session token to set as the cookie, when this one is due for renewal. */
  renewed?: string;
}
export * from './integration-events.ts';
export * from './event-schemas.ts';
export * from './asyncapi.ts';
export * from './subscription.ts';

export * from './views.ts';
export * from './filters.ts';
export * from './routes.ts';
export * from './audiences.ts';
export * from './billing.ts';
