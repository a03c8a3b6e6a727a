/**
 * Session tokens (spec part 5, item 7; API reference, "Dashboard authentication"): a JWT
 * (HS256, `jose`) whose subject is the user id, signed with a key derived from the platform
 * secret for this purpose. It lives 7 days and is renewed when a request comes with one older
 * than a day, so an active user stays signed in.
 */
import { SESSION_TTL_MS } from '@stamp/http-kit';
import type { Secrets } from '@stamp/platform';
import { jwtVerify, SignJWT } from 'jose';

/** Lifetime of a session token, seconds (7 days, the cookie's). */
export const SESSION_TTL_S = SESSION_TTL_MS / 1000;

/** Age after which a used token is renewed, seconds (1 day). */
export const SESSION_RENEW_AFTER_S = 24 * 3600;

const ALGORITHM = 'HS256';

/** Issues and verifies session tokens with a key derived from `secrets`. */
export function sessionTokens(secrets: Secrets, now: () => number = Date.now) {
  const key = secrets.derive('session');
  return {
    /** A new token for `userId`. */
    issue(userId: string): Promise<string> {
      const issuedAt = Math.floor(now() / 1000);
      return new SignJWT({})
        .setProtectedHeader({ alg: ALGORITHM })
        .setSubject(userId)
        .setIssuedAt(issuedAt)
        .setExpirationTime(issuedAt + SESSION_TTL_S)
        .sign(key);
    },
    /**
     * The user id and issue time (epoch s) of a valid token, or null when it is malformed,
     * forged, expired or of another algorithm.
     */
    async verify(token: string): Promise<{ userId: string; issuedAt: number } | null> {
      try {
        const { payload } = await jwtVerify(token, key, {
          algorithms: [ALGORITHM],
          currentDate: new Date(now()),
        });
        if (typeof payload.sub !== 'string' || typeof payload.iat !== 'number') return null;
        return { userId: payload.sub, issuedAt: payload.iat };
      } catch {
        return null;
      }
    },
  };
}

/** The session tokens of a platform secret. */
export type SessionTokens = ReturnType<typeof sessionTokens>;
