/**
 * The account emails: a subject and a short HTML body with one link under the public URL (the
 * dashboard's pages: `/verify-email`, `/reset-password`, `/signup`), the token in its `token`
 * (or `inviteToken`) query parameter.
 */
import type { AccountEmailKind } from '@stamp/contracts';

/** A rendered account email. */
export interface AccountMessage {
  subject: string;
  html: string;
}

const escape = (text: string): string =>
  text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

/** The link of an account email. */
export function accountLink(publicUrl: string, kind: AccountEmailKind, token: string): string {
  const url = new URL(publicUrl);
  const [path, parameter] =
    kind === 'VERIFY_EMAIL'
      ? ['/verify-email', 'token']
      : kind === 'RESET_PASSWORD'
        ? ['/reset-password', 'token']
        : ['/signup', 'inviteToken'];
  url.pathname = path;
  url.search = new URLSearchParams({ [parameter]: token }).toString();
  return url.toString();
}

/** The email of `kind` with its link; `projectName` names an invitation's project. */
export function accountMessage(
  kind: AccountEmailKind,
  link: string,
  projectName?: string,
): AccountMessage {
  const button = `<p><a href="${escape(link)}">${escape(link)}</a></p>`;
  switch (kind) {
    case 'VERIFY_EMAIL':
      return {
        subject: 'Confirm your email address',
        html: `<p>Confirm your email address for Stamp:</p>${button}<p>The link works once, for 24 hours.</p>`,
      };
    case 'RESET_PASSWORD':
      return {
        subject: 'Reset your password',
        html: `<p>Choose a new password for Stamp:</p>${button}<p>The link works once, for an hour. If you did not ask for it, ignore this email.</p>`,
      };
    case 'INVITATION':
      return {
        subject: `You are invited to ${projectName ?? 'a project'} on Stamp`,
        html: `<p>You are invited to join ${escape(projectName ?? 'a project')} on Stamp:</p>${button}<p>The link works once, for 7 days.</p>`,
      };
  }
}
