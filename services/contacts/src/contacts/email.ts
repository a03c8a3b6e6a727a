/** Email address normalisation of contacts (spec part 2: email is unique within a project). */
import { validationError } from '@stamp/http-kit';
import { z } from 'zod';

const emailSchema = z.email();

/**
 * The normalised form of an email address: trimmed and lowercased.
 * @throws ApiError 422 VALIDATION_ERROR (field `email`, code `invalid_format`) when it is not a
 *   valid address.
 */
export function normaliseEmail(email: string, field = 'email'): string {
  const normalised = email.trim().toLowerCase();
  if (normalised.length > 254 || !emailSchema.safeParse(normalised).success) {
    throw validationError([{ field, message: 'Invalid email address', code: 'invalid_format' }]);
  }
  return normalised;
}
