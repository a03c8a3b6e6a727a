/**
 * What a template sees when Stamp renders it for a recipient (API reference, "Templates and
 * links"): the contact's data, its reserved variables and its subscription links. The engine is
 * the platform's (`renderTemplate` of @stamp/platform).
 */

/** The variables a template sees (API reference, "Templates and links"). */
export interface RenderContact {
  id: string;
  email: string;
  subscribed: boolean;
  /** Stored contact data merged with this send's non-persistent values. */
  data: Record<string, unknown>;
}

/** The three subscription links of a recipient (API reference, "Templates and links"). */
export interface SubscriptionLinks {
  unsubscribeUrl: string;
  subscribeUrl: string;
  manageUrl: string;
}

/**
 * The subscription links for a token: `{publicUrl}/unsubscribe/<token>`, `/subscribe/<token>`,
 * `/manage/<token>` (trailing slashes of `publicUrl` dropped; the token URL-encoded). The token
 * is `secrets.sign('subscription', '<projectId>:<contactId>')`, verified by the contacts
 * service's public subscription routes.
 */
export function subscriptionLinks(publicUrl: string, token: string): SubscriptionLinks {
  const base = publicUrl.replace(/\/+$/, '');
  const encoded = encodeURIComponent(token);
  return {
    unsubscribeUrl: `${base}/unsubscribe/${encoded}`,
    subscribeUrl: `${base}/subscribe/${encoded}`,
    manageUrl: `${base}/manage/${encoded}`,
  };
}

/**
 * Builds the Liquid scope: the contact's data keys at top level and under `data`, plus `id,
 * email, subscribed, unsubscribeUrl, subscribeUrl, manageUrl, stamp_id, stamp_email, plunk_id,
 * plunk_email` (these win over data keys of the same name). URLs are {@link subscriptionLinks}
 * of `token`, the recipient's signed subscription token (`subscriptionToken` of
 * @stamp/contracts).
 */
export function templateScope(
  contact: RenderContact,
  publicUrl: string,
  token: string,
): Record<string, unknown> {
  return {
    ...contact.data,
    data: contact.data,
    id: contact.id,
    email: contact.email,
    subscribed: contact.subscribed,
    ...subscriptionLinks(publicUrl, token),
    stamp_id: contact.id,
    stamp_email: contact.email,
    plunk_id: contact.id,
    plunk_email: contact.email,
  };
}
