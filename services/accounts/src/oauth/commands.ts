/**
 * Login through an OpenID Connect provider once the provider has vouched for a verified
 * address: the account with that address (signed up with a password or through a provider) is
 * the user, and the provider's identity is linked to it; without one, a user is registered under
 * the sign-up rules of `POST /auth/signup`.
 */
import { ApiError } from '@stamp/http-kit';
import { decisionAppend, type EventStore, newId, withRevisionRetry } from '@stamp/platform';

import type { UserResource, UsersApi } from '../users/commands.ts';
import { userEmailStreamId, userStreamId } from '../users/events.ts';
import { linkIdentity, type ProviderIdentity, registerWithIdentity } from './decide.ts';
import {
  evolveLogin,
  initialLoginState,
  LOGIN_EVENT_TYPES,
  type LoginEvent,
  type LoginState,
} from './events.ts';

/** Dependencies of {@link createOidcLogin}. */
export interface OidcLoginDeps {
  store: EventStore;
  users: Pick<UsersApi, 'registerConfirmed' | 'signIn'>;
}

/** Result of {@link OidcLogin.login}. */
export interface OidcLoginResult {
  user: UserResource;
  /** A new session token of the user. */
  token: string;
  /** Whether the login registered the user. */
  created: boolean;
}

/** Login through a provider (see the module comment). */
export interface OidcLogin {
  /**
   * Logs the owner of `identity.email` in, linking the identity to the account (and confirming
   * its address) at the first login through it; registers a user when no account has the
   * address. `name` is the display name of a new user.
   * @throws ApiError 403 FORBIDDEN when a new user may not sign up (STAMP_SIGNUP=false and the
   *   installation has a user); 422 VALIDATION_ERROR for an unusable address.
   */
  login(
    identity: ProviderIdentity & { name: string },
    correlationId: string,
  ): Promise<OidcLoginResult>;
}

const ATTEMPTS = 5;

/** The login of {@link OidcLogin} over the event store and the users API. */
export function createOidcLogin(deps: OidcLoginDeps): OidcLogin {
  const { store, users } = deps;

  /** The user holding the claim of `email` (authoritative, not a view), or null. */
  async function ownerOf(email: string): Promise<string | null> {
    const events = await store.readStream(userEmailStreamId(email));
    const claim = events.findLast((event) => event.type === 'UserEmailClaimed');
    const userId = (claim?.data as { userId?: unknown } | undefined)?.userId;
    return typeof userId === 'string' ? userId : null;
  }

  async function loadUser(userId: string): Promise<LoginState & { revision: number }> {
    let state = initialLoginState;
    let revision = -1;
    for (const event of await store.readStream(userStreamId(userId))) {
      revision = event.revision;
      if (LOGIN_EVENT_TYPES.includes(event.type)) {
        state = evolveLogin(state, { type: event.type, data: event.data } as LoginEvent);
      }
    }
    return { ...state, revision };
  }

  /** Links `identity` to `userId` (when new) and signs the user in. */
  function link(userId: string, identity: ProviderIdentity, correlationId: string) {
    return withRevisionRetry(
      async () => {
        const user = await loadUser(userId);
        const events = linkIdentity(user, identity);
        if (events.length === 0) return users.signIn(userId, 0);
        const { position } = await store.append([
          decisionAppend(userStreamId(userId), user.revision, events, { correlationId }),
        ]);
        return users.signIn(userId, position);
      },
      { attempts: ATTEMPTS },
    );
  }

  return {
    async login(identity, correlationId) {
      const email = identity.email.trim().toLowerCase();
      const command = { ...identity, email };
      for (let attempt = 0; ; attempt++) {
        const owner = await ownerOf(email);
        if (owner !== null) {
          return { ...(await link(owner, command, correlationId)), created: false };
        }
        try {
          const signed = await users.registerConfirmed({
            userId: newId(),
            email,
            events: registerWithIdentity(command),
            correlationId,
          });
          return { ...signed, created: true };
        } catch (error) {
          // Another request registered the address meanwhile: log in to that account.
          if (!(error instanceof ApiError && error.status === 409) || attempt >= 1) throw error;
        }
      }
    },
  };
}
