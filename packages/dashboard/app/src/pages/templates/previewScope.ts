/**
 * What a template sees in a preview: the variables the platform gives it when it sends to a
 * contact (`templateScope` of the sending service; API reference, "Templates and links").
 */
import type { Schema } from '../../api/client';

/** The recipient a preview renders for: a contact of the project, or the sample recipient. */
export type PreviewRecipient = Pick<Schema<'Contact'>, 'id' | 'email' | 'subscribed' | 'data'>;

/** The recipient of previews when the project has no contact yet (no data fields). */
export const SAMPLE_RECIPIENT: PreviewRecipient = {
  id: 'sample-contact',
  email: 'someone@example.com',
  subscribed: true,
  data: {},
};

/**
 * Placeholders of the subscription links in a preview: each real email carries links signed for
 * its recipient, which only the server can make.
 */
const PREVIEW_LINKS = {
  unsubscribeUrl: '#unsubscribe',
  subscribeUrl: '#subscribe',
  manageUrl: '#manage',
} as const;

/** The variables every template has, whatever the contact's data (API reference). */
export const RESERVED_VARIABLES: readonly { name: string; description: string }[] = [
  { name: 'email', description: 'The recipient’s email address' },
  { name: 'id', description: 'The contact’s id' },
  { name: 'subscribed', description: 'true or false' },
  { name: 'unsubscribeUrl', description: 'Link to unsubscribe' },
  { name: 'subscribeUrl', description: 'Link to subscribe again' },
  { name: 'manageUrl', description: 'Link to the subscription page' },
];

/**
 * The Liquid scope of `recipient`, as the platform builds it: the contact's data keys at the top
 * level and under `data`, then `id, email, subscribed`, the subscription links and the `stamp_*`
 * and `plunk_*` aliases (these win over data keys of the same name).
 */
export function previewScope(recipient: PreviewRecipient): Record<string, unknown> {
  return {
    ...recipient.data,
    data: recipient.data,
    id: recipient.id,
    email: recipient.email,
    subscribed: recipient.subscribed,
    ...PREVIEW_LINKS,
    stamp_id: recipient.id,
    stamp_email: recipient.email,
    plunk_id: recipient.id,
    plunk_email: recipient.email,
  };
}
