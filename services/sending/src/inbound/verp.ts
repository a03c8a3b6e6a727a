/**
 * VERP return paths (variable envelope return path): the envelope sender of an email is
 * `b-<email id>-<tag>@<return-path host>`, so a bounce or complaint report sent back to it names
 * the email. The tag is a short HMAC of the id (`Secrets.tag`), so nobody can make Stamp take a
 * report for an email of their choosing. The local part has 55 characters (RFC 5321 allows 64).
 */
import type { Secrets } from '@stamp/platform';

const PURPOSE = 'verp';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const LOCAL_PART = /^b-([0-9a-f]{32})-([0-9a-f]{20})$/;

/**
 * The VERP address of email `emailId` (a UUID) at `returnPath`, or null when the id is not a
 * UUID (the email is then sent with its From address as envelope sender).
 */
export function verpAddress(secrets: Secrets, emailId: string, returnPath: string): string | null {
  const id = emailId.toLowerCase();
  if (!UUID.test(id)) return null;
  const compact = id.replace(/-/g, '');
  return `b-${compact}-${secrets.tag(PURPOSE, compact)}@${returnPath}`;
}

/** The email id a VERP address names; null for every other or forged address. */
export function readVerpAddress(secrets: Secrets, address: string): string | null {
  const at = address.lastIndexOf('@');
  if (at <= 0) return null;
  const match = LOCAL_PART.exec(address.slice(0, at).toLowerCase());
  if (match === null) return null;
  const [, compact = '', tag = ''] = match;
  if (!secrets.verifyTag(PURPOSE, compact, tag)) return null;
  return [
    compact.slice(0, 8),
    compact.slice(8, 12),
    compact.slice(12, 16),
    compact.slice(16, 20),
    compact.slice(20),
  ].join('-');
}
