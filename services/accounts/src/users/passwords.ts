/**
 * Password hashing: argon2id through `@node-rs/argon2`, with OWASP's minimum parameters
 * (19 MiB of memory, 2 passes, 1 lane; about 20 ms per hash on one core of a small server).
 */
import { hash, verify } from '@node-rs/argon2';

/** The argon2id cost of every stored password. */
export const ARGON2_OPTIONS = {
  // Algorithm.Argon2id (a const enum, not importable under verbatimModuleSyntax).
  algorithm: 2,
  memoryCost: 19_456,
  timeCost: 2,
  parallelism: 1,
} as const;

/** Shortest and longest password accepted, characters. */
export const PASSWORD_LENGTH = { min: 8, max: 256 } as const;

/** The PHC string (`$argon2id$v=19$m=19456,t=2,p=1$…`) of `password`. */
export const hashPassword = (password: string): Promise<string> => hash(password, ARGON2_OPTIONS);

/** A hash of no password: verified against when the email is unknown, so both take as long. */
let decoy: Promise<string> | undefined;

/**
 * Whether `password` matches `stored` (a PHC string). With `stored` null, verifies against a decoy
 * hash and answers false, so that an unknown account costs the same time as a wrong password.
 */
export async function verifyPassword(stored: string | null, password: string): Promise<boolean> {
  if (stored === null) {
    decoy ??= hashPassword('decoy password that matches nothing');
    await verify(await decoy, password).catch(() => false);
    return false;
  }
  return verify(stored, password).catch(() => false);
}
