/** Configuration rules of the accounts service shared by the processes that bootstrap it. */
import { z as zod, type z } from 'zod';

import { billingEnv } from './billing/config.ts';
import { shareRandomPart } from './keys.ts';

/** The bootstrap key variables (README "Configuration"). */
export interface BootstrapKeyVariables {
  STAMP_BOOTSTRAP_SECRET_KEY?: string | undefined;
  STAMP_BOOTSTRAP_PUBLIC_KEY?: string | undefined;
}

/**
 * Cross-field rules of `STAMP_BOOTSTRAP_SECRET_KEY` and `STAMP_BOOTSTRAP_PUBLIC_KEY`: both or
 * neither, and never the same random part (the public key would reveal the secret one). Use with
 * `.superRefine`; each broken rule is an issue naming the variables.
 */
export function checkBootstrapKeys(env: BootstrapKeyVariables, context: z.RefinementCtx): void {
  const secret = env.STAMP_BOOTSTRAP_SECRET_KEY;
  const given = env.STAMP_BOOTSTRAP_PUBLIC_KEY;
  if ((secret === undefined) !== (given === undefined)) {
    context.addIssue({
      code: 'custom',
      path: ['STAMP_BOOTSTRAP_SECRET_KEY'],
      message: 'set both STAMP_BOOTSTRAP_SECRET_KEY and STAMP_BOOTSTRAP_PUBLIC_KEY, or neither',
    });
    return;
  }
  if (secret !== undefined && given !== undefined && shareRandomPart(given, secret)) {
    context.addIssue({
      code: 'custom',
      path: ['STAMP_BOOTSTRAP_PUBLIC_KEY'],
      message:
        'STAMP_BOOTSTRAP_PUBLIC_KEY and STAMP_BOOTSTRAP_SECRET_KEY share their random part after ' +
        'pk_/sk_, so the public key would reveal the secret key; give two independent keys',
    });
  }
}

/** Scopes asked of an OpenID Connect provider when its entry names none. */
export const DEFAULT_OIDC_SCOPES: readonly string[] = ['openid', 'email', 'profile'];

/** Issuer of the `STAMP_GOOGLE_CLIENT_ID` shortcut. */
export const GOOGLE_ISSUER = 'https://accounts.google.com';

/**
 * One OpenID Connect provider users may log in with (an entry of `STAMP_OIDC_PROVIDERS`, or the
 * Google shortcut). `issuer` is the Issuer Identifier whose
 * `/.well-known/openid-configuration` is read (OpenID Connect Discovery 1.0, section 4).
 */
export interface OidcProviderConfig {
  /** Path segment of its routes (`/auth/oauth/<id>`): 1 to 32 of `a-z`, `0-9`, `-`, `_`. */
  id: string;
  /** Name shown on the login page, 1 to 100 characters. */
  name: string;
  /** Issuer URL: https, or http on a loopback host; no query or fragment. */
  issuer: string;
  /** Client id registered at the provider. */
  clientId: string;
  /** Client secret registered at the provider (sent with HTTP Basic, RFC 6749 section 2.3.1). */
  clientSecret: string;
  /** Scopes asked for; always with `openid`; default `openid email profile`. */
  scopes: string[];
}

const LOOPBACK_HOSTS = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/;

/** An issuer URL: https, or http on a loopback host (tests, a provider beside the process). */
const issuerUrl = zod
  .url()
  .refine((value) => {
    const url = new URL(value);
    return (
      url.protocol === 'https:' || (url.protocol === 'http:' && LOOPBACK_HOSTS.test(url.hostname))
    );
  }, 'must be an https URL (http only on a loopback host)')
  .refine((value) => {
    const url = new URL(value);
    return url.search === '' && url.hash === '' && url.username === '' && url.password === '';
  }, 'must have no query, fragment or credentials (OpenID Connect Discovery 1.0, section 2)');

/** A scope token (RFC 6749 section 3.3). */
const scope = zod.string().regex(/^[\x21\x23-\x5B\x5D-\x7E]{1,128}$/, 'must be a scope token');

const oidcProvider = zod
  .object({
    id: zod.string().regex(/^[a-z0-9][a-z0-9_-]{0,31}$/, 'must be 1 to 32 of a-z, 0-9, - and _'),
    name: zod.string().trim().min(1).max(100),
    issuer: issuerUrl,
    clientId: zod.string().min(1).max(1024),
    clientSecret: zod.string().min(1).max(4096),
    scopes: zod
      .array(scope)
      .min(1)
      .max(32)
      .refine((scopes) => scopes.includes('openid'), 'must include openid')
      .optional(),
  })
  .strict()
  .transform((provider): OidcProviderConfig => ({
    ...provider,
    scopes: provider.scopes ?? [...DEFAULT_OIDC_SCOPES],
  }));

/** `STAMP_OIDC_PROVIDERS`: a JSON array of providers with distinct ids; none when unset. */
const oidcProviders = zod
  .string()
  .optional()
  .transform((value, context) => {
    if (value === undefined || value.trim() === '') return [];
    try {
      return JSON.parse(value) as unknown;
    } catch {
      context.addIssue({
        code: 'custom',
        message: 'must be a JSON array of {id, name, issuer, clientId, clientSecret, scopes?}',
      });
      return zod.NEVER;
    }
  })
  .pipe(
    zod
      .array(oidcProvider)
      .max(20)
      .refine(
        (providers) => new Set(providers.map((provider) => provider.id)).size === providers.length,
        'provider ids must be distinct',
      ),
  );

/**
 * The accounts service's variables (API reference, "Configuration"): `STAMP_SIGNUP` (`true`:
 * anybody may sign up; `false`: only the first user of an installation, default `true`);
 * `STAMP_OIDC_PROVIDERS` (a JSON array of {@link OidcProviderConfig} entries, `scopes`
 * optional); `STAMP_GOOGLE_CLIENT_ID` and `STAMP_GOOGLE_CLIENT_SECRET` (both or neither: the
 * provider `google` at {@link GOOGLE_ISSUER}). Check the cross-field rules with
 * {@link checkOidcProviders}; read the providers with {@link oidcProvidersOf}. The billing
 * variables (`STAMP_STRIPE_*`, see `billingEnv`) are checked with `checkBilling` and read with
 * `stripeSettingsOf`.
 */
export const accountsEnv = {
  ...billingEnv,
  STAMP_SIGNUP: zod.enum(['true', 'false']).default('true'),
  STAMP_OIDC_PROVIDERS: oidcProviders,
  STAMP_GOOGLE_CLIENT_ID: zod.string().min(1).max(1024).optional(),
  STAMP_GOOGLE_CLIENT_SECRET: zod.string().min(1).max(4096).optional(),
};

/** The OpenID Connect variables once parsed by {@link accountsEnv}. */
export interface OidcVariables {
  STAMP_OIDC_PROVIDERS: OidcProviderConfig[];
  STAMP_GOOGLE_CLIENT_ID?: string | undefined;
  STAMP_GOOGLE_CLIENT_SECRET?: string | undefined;
}

/**
 * Cross-field rules of the OpenID Connect variables: `STAMP_GOOGLE_CLIENT_ID` and
 * `STAMP_GOOGLE_CLIENT_SECRET` both or neither, and no entry of `STAMP_OIDC_PROVIDERS` with the
 * id `google` beside them. Use with `.superRefine`; each broken rule is an issue naming the
 * variable.
 */
export function checkOidcProviders(env: OidcVariables, context: z.RefinementCtx): void {
  const id = env.STAMP_GOOGLE_CLIENT_ID;
  const secret = env.STAMP_GOOGLE_CLIENT_SECRET;
  if ((id === undefined) !== (secret === undefined)) {
    context.addIssue({
      code: 'custom',
      path: [id === undefined ? 'STAMP_GOOGLE_CLIENT_ID' : 'STAMP_GOOGLE_CLIENT_SECRET'],
      message: 'set both STAMP_GOOGLE_CLIENT_ID and STAMP_GOOGLE_CLIENT_SECRET, or neither',
    });
    return;
  }
  // After a field error the value may be the raw input: check only a parsed list.
  const listed: unknown = env.STAMP_OIDC_PROVIDERS;
  const providers = Array.isArray(listed) ? (listed as Partial<OidcProviderConfig>[]) : [];
  if (id !== undefined && providers.some((provider) => provider.id === 'google')) {
    context.addIssue({
      code: 'custom',
      path: ['STAMP_OIDC_PROVIDERS'],
      message: 'has a provider with the id google while STAMP_GOOGLE_CLIENT_ID sets one too',
    });
  }
}

/** The providers users may log in with: `STAMP_OIDC_PROVIDERS`, then the Google shortcut. */
export function oidcProvidersOf(env: OidcVariables): OidcProviderConfig[] {
  const providers = [...env.STAMP_OIDC_PROVIDERS];
  if (env.STAMP_GOOGLE_CLIENT_ID !== undefined && env.STAMP_GOOGLE_CLIENT_SECRET !== undefined) {
    providers.push({
      id: 'google',
      name: 'Google',
      issuer: GOOGLE_ISSUER,
      clientId: env.STAMP_GOOGLE_CLIENT_ID,
      clientSecret: env.STAMP_GOOGLE_CLIENT_SECRET,
      scopes: [...DEFAULT_OIDC_SCOPES],
    });
  }
  return providers;
}
