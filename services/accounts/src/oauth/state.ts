/**
 * The sign-in state of an OpenID Connect login between its start and its callback: the `state`,
 * `nonce` and PKCE `code_verifier` (RFC 7636) of the authorization request, the provider and the
 * path to return to, kept by the browser in a short-lived cookie `stamp_oauth` (HttpOnly,
 * SameSite=Lax so that the provider's redirect carries it, Path=/auth/oauth, Secure when the
 * public URL is https) holding a JWT (HS256, `jose`) signed with a key derived from the platform
 * secret, like the session token's, for this purpose.
 */
import { cookieAttributes, cookieOf } from '@stamp/http-kit';
import type { Secrets } from '@stamp/platform';
import type { Request, Response } from 'express';
import { jwtVerify, SignJWT } from 'jose';

/** Name of the sign-in state cookie. */
export const OAUTH_STATE_COOKIE = 'stamp_oauth';

/** Lifetime of a sign-in at the provider, seconds (10 minutes). */
export const OAUTH_STATE_TTL_S = 600;

/** Path of the cookie: the login routes only. */
const COOKIE_PATH = '/auth/oauth';

const ALGORITHM = 'HS256';
/** Audience of the state token: no other token signed by the platform passes for one. */
const AUDIENCE = 'stamp:oauth-state';

/** What a login keeps between its start and its callback. */
export interface OauthState {
  /** Id of the configured provider. */
  provider: string;
  /** The `state` of the authorization request (RFC 6749 section 4.1.1). */
  state: string;
  /** The `nonce` of the authorization request (OpenID Connect Core 1.0 section 3.1.2.1). */
  nonce: string;
  /** The PKCE code verifier (RFC 7636 section 4.1). */
  codeVerifier: string;
  /** The path under the public URL's origin to return to after login (starts with `/`). */
  returnTo: string;
}

/** Seals and reads sign-in states with a key derived from `secrets`. */
export function oauthStates(secrets: Secrets, publicUrl: string, now: () => number = Date.now) {
  const key = secrets.derive('oauth-state');
  return {
    /** Sets the state cookie to a signed token of `state`, valid {@link OAUTH_STATE_TTL_S}. */
    async set(res: Response, state: OauthState): Promise<void> {
      const issuedAt = Math.floor(now() / 1000);
      const token = await new SignJWT({
        p: state.provider,
        s: state.state,
        n: state.nonce,
        v: state.codeVerifier,
        r: state.returnTo,
      })
        .setProtectedHeader({ alg: ALGORITHM })
        .setAudience(AUDIENCE)
        .setIssuedAt(issuedAt)
        .setExpirationTime(issuedAt + OAUTH_STATE_TTL_S)
        .sign(key);
      res.cookie(OAUTH_STATE_COOKIE, token, {
        ...cookieAttributes(publicUrl, COOKIE_PATH),
        maxAge: OAUTH_STATE_TTL_S * 1000,
      });
    },

    /** Clears the state cookie: a state serves one callback. */
    clear(res: Response): void {
      res.clearCookie(OAUTH_STATE_COOKIE, cookieAttributes(publicUrl, COOKIE_PATH));
    },

    /**
     * The state of the request's cookie, or null when it is absent, malformed, forged, expired
     * or of another token kind.
     */
    async read(req: Request): Promise<OauthState | null> {
      const token = cookieOf(req, OAUTH_STATE_COOKIE);
      if (token === undefined) return null;
      try {
        const { payload } = await jwtVerify(token, key, {
          algorithms: [ALGORITHM],
          audience: AUDIENCE,
          currentDate: new Date(now()),
        });
        const { p, s, n, v, r } = payload;
        if (
          typeof p !== 'string' ||
          typeof s !== 'string' ||
          typeof n !== 'string' ||
          typeof v !== 'string' ||
          typeof r !== 'string'
        ) {
          return null;
        }
        return { provider: p, state: s, nonce: n, codeVerifier: v, returnTo: r };
      } catch {
        return null;
      }
    },
  };
}

/** The sign-in states of a platform secret. */
export type OauthStates = ReturnType<typeof oauthStates>;
