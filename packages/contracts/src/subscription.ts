/**
 * Subscription tokens, the contract between the service that writes links into emails (sending)
 * and the one that serves the subscription pages (contacts): `sign('subscription',
 * '<projectId>:<contactId>')`. A token stands in for an API key on the public pages, so a link
 * can only change its own contact.
 */

/** Signs and verifies payloads per purpose (implemented by the platform's `Secrets`). */
export interface Signer {
  sign(purpose: string, payload: string): string;
  /** The payload, or null for a malformed, forged or other-purpose token; never throws. */
  verify(purpose: string, token: string): string | null;
}

/** Purpose of subscription tokens. */
export const SUBSCRIPTION_PURPOSE = 'subscription';

/** The contact a subscription token designates. */
export interface SubscriptionTarget {
  projectId: string;
  contactId: string;
}

/** The signed, URL-safe token of a contact of a project. */
export function subscriptionToken(signer: Signer, projectId: string, contactId: string): string {
  return signer.sign(SUBSCRIPTION_PURPOSE, `${projectId}:${contactId}`);
}

/** The contact of a token; null for a malformed, forged or other-purpose token. Never throws. */
export function readSubscriptionToken(signer: Signer, token: string): SubscriptionTarget | null {
  const payload = signer.verify(SUBSCRIPTION_PURPOSE, token);
  if (payload === null) return null;
  const at = payload.lastIndexOf(':');
  if (at <= 0 || at === payload.length - 1) return null;
  return { projectId: payload.slice(0, at), contactId: payload.slice(at + 1) };
}
