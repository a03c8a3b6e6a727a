/**
 * The one validator of email addresses every route shares: RFC 5321's size limits, then the
 * address format of zod's `z.email()`.
 */
import { z } from 'zod';

import { type FieldError, validationError } from './errors.ts';

/** Most octets of a local part (RFC 5321 §4.5.3.1.1). */
export const MAX_LOCAL_PART_OCTETS = 64;
/** Most octets of a domain (RFC 5321 §4.5.3.1.2). */
export const MAX_DOMAIN_OCTETS = 255;
/** Most octets of one domain label (RFC 1035 §2.3.4, RFC 5321 §2.3.5). */
export const MAX_LABEL_OCTETS = 63;
/**
 * Most octets of a whole address: a reverse or forward path is at most 256 octets with its angle
 * brackets (RFC 5321 §4.5.3.1.3), so the address inside is at most 254.
 */
export const MAX_ADDRESS_OCTETS = 254;

const format = z.email();
const octets = (text: string): number => Buffer.byteLength(text, 'utf8');

/** Why an address is refused: a message and the validator code of the error envelope. */
export interface AddressProblem {
  message: string;
  /** `too_big` for a size limit, `invalid_format` otherwise. */
  code: 'too_big' | 'invalid_format';
}

/**
 * Why `address` is not an acceptable email address, or null when it is. Checked in order: an
 * `@` is present, the local part (before the last `@`) has at most 64 octets, every domain label
 * at most 63, the domain at most 255, the whole address at most 254 (UTF-8 octets; RFC 5321
 * §4.5.3.1), then the format (`z.email()`). The address is taken as given: trim or lowercase it
 * first where that is the rule.
 */
export function addressProblem(address: string): AddressProblem | null {
  const at = address.lastIndexOf('@');
  if (at <= 0 || at === address.length - 1) {
    return { message: 'Invalid email address', code: 'invalid_format' };
  }
  const local = address.slice(0, at);
  const domain = address.slice(at + 1);
  if (octets(local) > MAX_LOCAL_PART_OCTETS) {
    return {
      message: `The part before @ may have at most ${MAX_LOCAL_PART_OCTETS} octets (RFC 5321)`,
      code: 'too_big',
    };
  }
  if (domain.split('.').some((label) => octets(label) > MAX_LABEL_OCTETS)) {
    return {
      message: `Each dot-separated part of the domain may have at most ${MAX_LABEL_OCTETS} octets (RFC 1035)`,
      code: 'too_big',
    };
  }
  if (octets(domain) > MAX_DOMAIN_OCTETS) {
    return {
      message: `The domain may have at most ${MAX_DOMAIN_OCTETS} octets (RFC 5321)`,
      code: 'too_big',
    };
  }
  if (octets(address) > MAX_ADDRESS_OCTETS) {
    return {
      message: `An email address may have at most ${MAX_ADDRESS_OCTETS} octets (RFC 5321)`,
      code: 'too_big',
    };
  }
  if (!format.safeParse(address).success) {
    return { message: 'Invalid email address', code: 'invalid_format' };
  }
  return null;
}

/**
 * zod schema of an email address in a request body or query: a string that
 * {@link addressProblem} accepts. Its issues carry the problem's message and `code` in their
 * params, and {@link fieldErrors} reports that code.
 */
export const emailAddress = z.string().superRefine((address, context) => {
  const problem = addressProblem(address);
  if (problem !== null) {
    context.addIssue({
      code: 'custom',
      message: problem.message,
      params: { code: problem.code },
    });
  }
});

/**
 * `address` checked by {@link addressProblem}.
 * @throws ApiError 422 VALIDATION_ERROR naming `field` with the problem's message and code.
 */
export function assertEmailAddress(address: string, field: string): string {
  const problem = addressProblem(address);
  if (problem !== null) {
    const error: FieldError = { field, message: problem.message, code: problem.code };
    throw validationError([error]);
  }
  return address;
}
