/**
 * Login through OpenID Connect providers (spec part 4, `GET /auth/oauth-config`; OpenID Connect
 * Core 1.0, authorization code flow, with PKCE (RFC 7636), `state` and `nonce`), answered
 * without an API key:
 * - `GET /auth/oauth-config` → 200 `{success: true, data: {github, google, providers: [{id,
 *   name, loginUrl}]}}`: Plunk's answer (`github` and `google`: whether a provider with that id
 *   is configured), plus every configured provider and the URL that starts its login.
 * - `GET /auth/oauth/:provider?redirect=/path` → 302 to the provider's authorization endpoint,
 *   with the sign-in state in the `stamp_oauth` cookie (10 minutes). `redirect` is a path under
 *   the public URL's origin to return to (422 VALIDATION_ERROR for anything else: no open
 *   redirect). 404 RESOURCE_NOT_FOUND for an unknown provider.
 * - `GET /auth/oauth/:provider/callback` (the redirect URI registered at the provider:
 *   `STAMP_PUBLIC_URL/auth/oauth/<id>/callback`) → 302 to `STAMP_PUBLIC_URL` (or the start's
 *   `redirect` path) with the session cookie set as `POST /auth/login` sets it. The account
 *   with the provider's verified email is the user (linked at the first login); without one, a
 *   user is registered (no password, address confirmed) under the sign-up rules. Failures are
 *   answered in the error envelope, never as redirects: 404 RESOURCE_NOT_FOUND (unknown
 *   provider), 400 BAD_REQUEST (no or expired sign-in state, a `state` that does not match, an
 *   error from the provider, a code or ID token that does not validate), 403
 *   EMAIL_VERIFICATION_REQUIRED (no email, or one the provider has not verified), 403
 *   FORBIDDEN (sign-up closed), 502 BAD_GATEWAY (the provider cannot be reached). Every answer
 *   clears the sign-in state: it serves one callback.
 */
import {
  addressProblem,
  ApiError,
  notFound,
  parse,
  requestIdOf,
  setSessionCookie,
} from '@stamp/http-kit';
import { type Request, Router } from 'express';
import type * as OpenidClient from 'openid-client';
import type { Configuration, IDToken } from 'openid-client';
import { z } from 'zod';

import type { OidcProviderConfig } from '../config.ts';
import type { OidcLogin } from './commands.ts';
import { type OidcProviders, openidClient } from './providers.ts';
import type { OauthStates } from './state.ts';

/** Dependencies of {@link oauthRouter}. */
export interface OauthRouterDeps {
  providers: OidcProviders;
  login: OidcLogin;
  states: OauthStates;
  /** STAMP_PUBLIC_URL: base of the login and redirect URIs, and where a login returns. */
  publicUrl: string;
}

/** A provider as `GET /auth/oauth-config` lists it. */
export interface OauthProviderResource {
  id: string;
  name: string;
  /** Absolute URL that starts a login with the provider. */
  loginUrl: string;
}

/** Query of GET /auth/oauth/:provider. */
export const startQuery = z.object({ redirect: z.string().min(1).max(2048).optional() });
/** Query of GET /auth/oauth/:provider/callback. */
export const callbackQuery = z.object({
  state: z.string().max(2048).optional(),
  code: z.string().max(4096).optional(),
  error: z.string().max(256).optional(),
  error_description: z.string().max(2048).optional(),
});

/** Control characters, whitespace and backslashes: never part of a path to return to. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const UNSAFE_PATH = /[\u0000-\u0020\u007f\\]/;

/** Codes of `openid-client` errors about a provider answering badly rather than a bad request. */
const PROVIDER_FAULTS: ReadonlySet<string> = new Set([
  'OAUTH_RESPONSE_IS_NOT_CONFORM',
  'OAUTH_RESPONSE_IS_NOT_JSON',
  'OAUTH_HTTP_REQUEST_FORBIDDEN',
  'OAUTH_REQUEST_PROTOCOL_FORBIDDEN',
]);

const expiredState = (): ApiError =>
  new ApiError(400, 'BAD_REQUEST', 'This sign-in expired or was not started here', {
    suggestion: 'Start the login again.',
  });

/** The login routes (see the module comment). */
export function oauthRouter(deps: OauthRouterDeps): Router {
  const router = Router();
  const base = deps.publicUrl.replace(/\/+$/, '');
  const publicOrigin = new URL(deps.publicUrl).origin;
  const loginUrl = (provider: OidcProviderConfig): string =>
    `${base}/auth/oauth/${encodeURIComponent(provider.id)}`;
  const redirectUri = (provider: OidcProviderConfig): string => `${loginUrl(provider)}/callback`;

  /** The provider named by the path; 404 RESOURCE_NOT_FOUND when none has that id. */
  function providerOf(req: Request<{ provider: string }>): OidcProviderConfig {
    const found = deps.providers.find(req.params.provider);
    if (found === undefined) throw notFound('RESOURCE_NOT_FOUND', 'Unknown sign-in provider');
    return found;
  }

  /**
   * The path to return to after login: `redirect` when it is a path under the public URL's
   * origin, '' (the public URL) without one.
   * @throws ApiError 422 VALIDATION_ERROR for anything else.
   */
  function returnPath(redirect: string | undefined): string {
    if (redirect === undefined) return '';
    const refuse = () =>
      new ApiError(422, 'VALIDATION_ERROR', 'Validation failed', {
        errors: [
          {
            field: 'redirect',
            message: 'Must be a path on this site, such as /projects',
            code: 'invalid_redirect',
          },
        ],
      });
    if (!redirect.startsWith('/') || redirect.startsWith('//') || UNSAFE_PATH.test(redirect)) {
      throw refuse();
    }
    const target = new URL(redirect, publicOrigin);
    if (target.origin !== publicOrigin) throw refuse();
    return `${target.pathname}${target.search}${target.hash}`;
  }

  router.get('/auth/oauth-config', (_req, res) => {
    const ids = new Set(deps.providers.list.map((provider) => provider.id));
    const providers: OauthProviderResource[] = deps.providers.list.map((provider) => ({
      id: provider.id,
      name: provider.name,
      loginUrl: loginUrl(provider),
    }));
    res.json({
      success: true,
      data: { github: ids.has('github'), google: ids.has('google'), providers },
    });
  });

  router.get('/auth/oauth/:provider', async (req, res) => {
    const provider = providerOf(req);
    const { redirect } = parse(startQuery, req.query);
    const returnTo = returnPath(redirect);
    const config = await deps.providers.configuration(provider);
    const {
      buildAuthorizationUrl,
      calculatePKCECodeChallenge,
      randomNonce,
      randomPKCECodeVerifier,
      randomState,
    } = await openidClient();
    const codeVerifier = randomPKCECodeVerifier();
    const state = randomState();
    const nonce = randomNonce();
    const url = buildAuthorizationUrl(config, {
      redirect_uri: redirectUri(provider),
      scope: provider.scopes.join(' '),
      response_type: 'code',
      code_challenge: await calculatePKCECodeChallenge(codeVerifier),
      code_challenge_method: 'S256',
      state,
      nonce,
    });
    await deps.states.set(res, { provider: provider.id, state, nonce, codeVerifier, returnTo });
    res.set('Cache-Control', 'no-store');
    res.redirect(302, url.href);
  });

  router.get('/auth/oauth/:provider/callback', async (req, res) => {
    const provider = providerOf(req);
    res.set('Cache-Control', 'no-store');
    deps.states.clear(res);
    const query = parse(callbackQuery, req.query);
    const started = await deps.states.read(req);
    if (started === null || started.provider !== provider.id) throw expiredState();
    if (query.state !== started.state) {
      throw new ApiError(400, 'BAD_REQUEST', 'The sign-in state does not match', {
        suggestion: 'Start the login again.',
      });
    }
    if (query.error !== undefined) {
      throw new ApiError(400, 'BAD_REQUEST', `${provider.name} refused the sign-in`, {
        details: {
          error: query.error,
          ...(query.error_description === undefined
            ? {}
            : { description: query.error_description }),
        },
      });
    }
    const config = await deps.providers.configuration(provider);
    const claims = await verifiedClaims(config, provider, req, redirectUri(provider), started);
    const signedIn = await deps.login.login(
      {
        provider: provider.id,
        issuer: claims.issuer,
        subject: claims.subject,
        email: claims.email,
        name: claims.name ?? '',
      },
      requestIdOf(res),
    );
    setSessionCookie(res, signedIn.token, deps.publicUrl);
    res.redirect(302, started.returnTo === '' ? deps.publicUrl : publicOrigin + started.returnTo);
  });

  return router;
}

/** What login takes from a validated ID token (and the user info, when needed). */
interface VerifiedClaims {
  issuer: string;
  subject: string;
  /** The verified address, trimmed and lower-cased. */
  email: string;
  name?: string;
}

/**
 * Exchanges the callback's code (with the PKCE verifier), validates the ID token (signature,
 * `iss`, `aud`, expiry, `nonce`) and reads the email: from the ID token when it carries `email`
 * and `email_verified`, else from the user info endpoint (OpenID Connect Core 1.0 section 5.3,
 * whose `sub` must be the ID token's).
 * @throws ApiError 400 BAD_REQUEST when the provider refuses the code or its answer does not
 *   validate; 403 EMAIL_VERIFICATION_REQUIRED without a verified email; 502 BAD_GATEWAY when the
 *   provider cannot be reached or answers out of protocol.
 */
async function verifiedClaims(
  config: Configuration,
  provider: OidcProviderConfig,
  req: Request,
  redirectUri: string,
  started: { state: string; nonce: string; codeVerifier: string },
): Promise<VerifiedClaims> {
  const current = new URL(redirectUri);
  const question = req.originalUrl.indexOf('?');
  current.search = question === -1 ? '' : req.originalUrl.slice(question);
  const oidc = await openidClient();
  const { authorizationCodeGrant, ClientError, fetchUserInfo } = oidc;
  try {
    const tokens = await authorizationCodeGrant(config, current, {
      pkceCodeVerifier: started.codeVerifier,
      expectedState: started.state,
      expectedNonce: started.nonce,
      idTokenExpected: true,
    });
    const idToken: IDToken | undefined = tokens.claims();
    if (idToken === undefined) throw new ClientError('no ID token');
    let source: Record<string, unknown> = idToken;
    if (
      (typeof idToken.email !== 'string' || idToken.email_verified === undefined) &&
      config.serverMetadata().userinfo_endpoint !== undefined
    ) {
      source = await fetchUserInfo(config, tokens.access_token, idToken.sub);
    }
    const email = source.email;
    if (typeof email !== 'string' || email.trim() === '') {
      throw new ApiError(
        403,
        'EMAIL_VERIFICATION_REQUIRED',
        `${provider.name} shared no email address`,
        { suggestion: 'Allow access to your email address at the provider.' },
      );
    }
    const address = email.trim().toLowerCase();
    if (addressProblem(address) !== null) {
      throw new ApiError(
        400,
        'BAD_REQUEST',
        `The email address from ${provider.name} is not usable`,
      );
    }
    const verified = source.email_verified;
    if (verified !== true && verified !== 'true') {
      throw new ApiError(
        403,
        'EMAIL_VERIFICATION_REQUIRED',
        `${provider.name} has not verified this email address`,
        { suggestion: 'Verify your address at the provider, then log in again.' },
      );
    }
    const name = typeof idToken.name === 'string' ? idToken.name : source.name;
    return {
      issuer: idToken.iss,
      subject: idToken.sub,
      email: address,
      ...(typeof name === 'string' ? { name } : {}),
    };
  } catch (error) {
    throw providerFailure(error, provider, oidc);
  }
}

/** The API error of a failed exchange with `provider` (see {@link verifiedClaims}). */
function providerFailure(
  error: unknown,
  provider: OidcProviderConfig,
  oidc: typeof OpenidClient,
): unknown {
  if (error instanceof ApiError) return error;
  if (error instanceof oidc.AuthorizationResponseError || error instanceof oidc.ResponseBodyError) {
    return new ApiError(400, 'BAD_REQUEST', `${provider.name} refused the sign-in`, {
      details: { error: error.error, description: error.error_description },
      suggestion: 'Start the login again.',
    });
  }
  if (error instanceof oidc.ClientError && !PROVIDER_FAULTS.has(error.code ?? '')) {
    return new ApiError(400, 'BAD_REQUEST', `The answer of ${provider.name} did not validate`, {
      details: { reason: error.message },
      suggestion: 'Start the login again.',
    });
  }
  return new ApiError(502, 'BAD_GATEWAY', `${provider.name} could not be reached`, {
    details: { reason: (error as Error).message },
    suggestion: 'Try again shortly.',
  });
}
