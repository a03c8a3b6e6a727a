/**
 * Single-use links sent by email (API reference, "Dashboard authentication and members"): a JWT
 * (HS256, `jose`, a key derived from the platform secret for them) naming its purpose, with an
 * id (`jti`) whose claim stream `accountToken-<jti>` records its one use. Lifetimes: email
 * verification 24 hours, password reset 1 hour, invitation 7 days.
 */
import type { AccountEmailKind } from '@stamp/contracts';
import { derivedId, newId, type Secrets } from '@stamp/platform';
import { jwtVerify, SignJWT } from 'jose';

/** Lifetime of each kind of link, seconds. */
export const TOKEN_TTL_S: Readonly<Record<AccountEmailKind, number>> = {
  VERIFY_EMAIL: 24 * 3600,
  RESET_PASSWORD: 3600,
  INVITATION: 7 * 24 * 3600,
};

/** What a link carries besides its purpose. */
export interface TokenClaims {
  /** The user it is for (verification, reset). */
  userId?: string;
  /** The address it was sent to. */
  email?: string;
  /** An invitation's project and role. */
  projectId?: string;
  role?: 'ADMIN' | 'MEMBER';
}

/** Stream id of the claim of token `jti`. */
export const tokenClaimStream = (jti: string): string =>
  `accountToken-${derivedId(`account-token:${jti}`)}`;

/** Issues and verifies account links with a key derived from `secrets`. */
export function accountTokens(secrets: Secrets, now: () => number = Date.now) {
  const key = secrets.derive('account-token');
  return {
    /** A new link token of `purpose`. */
    issue(purpose: AccountEmailKind, claims: TokenClaims): Promise<string> {
      const issuedAt = Math.floor(now() / 1000);
      return new SignJWT({ purpose, ...claims })
        .setProtectedHeader({ alg: 'HS256' })
        .setJti(newId())
        .setIssuedAt(issuedAt)
        .setExpirationTime(issuedAt + TOKEN_TTL_S[purpose])
        .sign(key);
    },
    /** The claims and id of a valid, unexpired token of `purpose`, or null. */
    async verify(
      token: string,
      purpose: AccountEmailKind,
    ): Promise<(TokenClaims & { jti: string }) | null> {
      try {
        const { payload } = await jwtVerify(token, key, {
          algorithms: ['HS256'],
          currentDate: new Date(now()),
        });
        if (payload.purpose !== purpose || typeof payload.jti !== 'string') return null;
        const text = (name: string): string | undefined =>
          typeof payload[name] === 'string' ? payload[name] : undefined;
        const role = text('role');
        return {
          jti: payload.jti,
          ...(text('userId') === undefined ? {} : { userId: text('userId') }),
          ...(text('email') === undefined ? {} : { email: text('email') }),
          ...(text('projectId') === undefined ? {} : { projectId: text('projectId') }),
          ...(role === 'ADMIN' || role === 'MEMBER' ? { role } : {}),
        };
      } catch {
        return null;
      }
    },
  };
}

/** The account link tokens of a platform secret. */
export type AccountTokens = ReturnType<typeof accountTokens>;
