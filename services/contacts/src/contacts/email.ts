/** Email address normalisation of contacts (spec part 2: email is unique within a project). */
import { assertEmailAddress } from '@stamp/http-kit';

/**
 * The normalised form of an email address: trimmed and lowercased, then checked by the shared
 * address validator (RFC 5321 size limits: local part ≤ 64 octets, domain ≤ 255, labels ≤ 63,
 * address ≤ 254; then the format).
 * @throws ApiError 422 VALIDATION_ERROR naming `field` (code `too_big` for a size limit,
 *   `invalid_format` otherwise).
 */
export function normaliseEmail(email: string, field = 'email'): string {
  return assertEmailAddress(email.trim().toLowerCase(), field);
}
