import { createHash, randomBytes } from 'node:crypto';

import type { KeyKind } from '@stamp/contracts';

/** Prefix of each kind of API key (spec part 5). */
export const KEY_PREFIX: Readonly<Record<KeyKind, string>> = { public: 'pk_', secret: 'sk_' };

/** Accepted shape of a public key given from outside (configuration, bootstrap). */
export const PUBLIC_KEY_PATTERN = /^pk_[A-Za-z0-9]{16,64}$/;
/** Accepted shape of a secret key given from outside (configuration, bootstrap). */
export const SECRET_KEY_PATTERN = /^sk_[A-Za-z0-9]{16,64}$/;

const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
/** Random characters in a generated key. */
const GENERATED_LENGTH = 32;

/**
 * A new random API key: `pk_` or `sk_` followed by 32 base62 characters drawn from
 * `crypto.randomBytes` without modulo bias (bytes ≥ 248 are rejected).
 */
export function generateKey(kind: KeyKind): string {
  let out = KEY_PREFIX[kind];
  while (out.length < KEY_PREFIX[kind].length + GENERATED_LENGTH) {
    for (const byte of randomBytes(48)) {
      if (byte >= 248) continue;
      out += BASE62.charAt(byte % 62);
      if (out.length === KEY_PREFIX[kind].length + GENERATED_LENGTH) break;
    }
  }
  return out;
}

/** Whether `key` has the accepted shape of a key of `kind` (see the patterns above). */
export function isValidKey(kind: KeyKind, key: string): boolean {
  return (kind === 'public' ? PUBLIC_KEY_PATTERN : SECRET_KEY_PATTERN).test(key);
}

/**
 * Whether a public and a secret key share their random part (the characters after `pk_` /
 * `sk_`): then the public key, which browsers carry, reveals the secret key.
 */
export function shareRandomPart(publicKey: string, secretKey: string): boolean {
  return publicKey.slice(KEY_PREFIX.public.length) === secretKey.slice(KEY_PREFIX.secret.length);
}

/** The kind a key's prefix announces, or null when it has neither prefix. */
export function kindOfKey(key: string): KeyKind | null {
  if (key.startsWith(KEY_PREFIX.public)) return 'public';
  if (key.startsWith(KEY_PREFIX.secret)) return 'secret';
  return null;
}

/** SHA-256 of the key as lowercase hex (64 chars): the only form of a key ever stored. */
export function hashKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** Display hint of a key: its prefix and last 4 characters, for example `sk_…a1B2`. */
export function keyHint(key: string): string {
  return `${key.slice(0, 3)}…${key.slice(-4)}`;
}
