/**
 * The configured OpenID Connect providers as clients of `openid-client` (v6): each provider's
 * metadata is discovered from `<issuer>/.well-known/openid-configuration` (OpenID Connect
 * Discovery 1.0) at its first login, then kept for the life of the process; a failed discovery
 * is tried again at the next login. The client authenticates at the token endpoint with
 * `client_secret_basic` (RFC 6749 section 2.3.1, the default of OpenID Connect client
 * registration).
 */
import { ApiError } from '@stamp/http-kit';
import type * as OpenidClient from 'openid-client';
import type { Configuration } from 'openid-client';

import type { OidcProviderConfig } from '../config.ts';

/** Time a provider has to answer one request (discovery, token, user info, keys), seconds. */
export const PROVIDER_TIMEOUT_S = 10;

/**
 * The `openid-client` module, loaded at the first login: an installation without providers, or
 * whose users never log in through one, does not hold it.
 */
export const openidClient = (): Promise<typeof OpenidClient> => import('openid-client');

/** The providers users may log in with, and their discovered client configurations. */
export interface OidcProviders {
  /** The providers, in configuration order. */
  readonly list: readonly OidcProviderConfig[];
  /** The provider with id `id`, or undefined. */
  find(id: string): OidcProviderConfig | undefined;
  /**
   * The client configuration of `provider`, discovered at the first call.
   * @throws ApiError 502 BAD_GATEWAY when the provider's metadata cannot be read or is invalid.
   */
  configuration(provider: OidcProviderConfig): Promise<Configuration>;
}

/** The clients of `providers` (see the module comment). */
export function oidcProviders(providers: readonly OidcProviderConfig[]): OidcProviders {
  const byId = new Map(providers.map((provider) => [provider.id, provider]));
  const discovered = new Map<string, Promise<Configuration>>();

  async function discover(provider: OidcProviderConfig): Promise<Configuration> {
    const issuer = new URL(provider.issuer);
    const oidc = await openidClient();
    return oidc.discovery(
      issuer,
      provider.clientId,
      { client_secret: provider.clientSecret },
      oidc.ClientSecretBasic(provider.clientSecret),
      {
        timeout: PROVIDER_TIMEOUT_S,
        // Configuration accepts http only for an issuer on a loopback host.
        // eslint-disable-next-line @typescript-eslint/no-deprecated -- meant for such issuers
        ...(issuer.protocol === 'http:' ? { execute: [oidc.allowInsecureRequests] } : {}),
      },
    );
  }

  return {
    list: providers,
    find: (id) => byId.get(id),
    async configuration(provider) {
      let pending = discovered.get(provider.id);
      if (pending === undefined) {
        pending = discover(provider);
        discovered.set(provider.id, pending);
      }
      try {
        return await pending;
      } catch (error) {
        if (discovered.get(provider.id) === pending) discovered.delete(provider.id);
        throw new ApiError(502, 'BAD_GATEWAY', `${provider.name} could not be reached`, {
          details: { provider: provider.id, reason: (error as Error).message },
          suggestion: 'Try again shortly.',
        });
      }
    },
  };
}
