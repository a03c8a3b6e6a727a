/**
 * Events of OpenID Connect login on the `user-<id>` streams (accounts service), and the state of
 * a user that login folds from that stream (its registration, its confirmed address and its
 * linked provider identities).
 */
import { evolveUser, type UserEvent, type UserState } from '../users/events.ts';

/**
 * A provider identity was linked to the user: from now on a login through that provider with
 * that subject is this user. Appended at the first login through the provider, whether it
 * created the user or found one with the same verified email (OpenID Connect Core 1.0 section
 * 5.7: `iss` and `sub` together identify the End-User at the provider).
 */
export interface UserIdentityLinked {
  type: 'UserIdentityLinked';
  data: {
    /** Id of the configured provider (`STAMP_OIDC_PROVIDERS`), for example `google`. */
    provider: string;
    /** Issuer Identifier of the provider (the ID token's `iss`). */
    issuer: string;
    /** Subject Identifier at the provider (the ID token's `sub`). */
    subject: string;
    /** The verified address the provider vouched for, lower-cased. */
    email: string;
  };
}

/** Every event of a user stream that login reads. */
export type LoginEvent = UserEvent | UserIdentityLinked;

/** State of a user for login, folded from its stream. */
export interface LoginState extends UserState {
  /** Whether the address was confirmed (by an emailed link, an invitation, or a provider). */
  emailVerified: boolean;
  /** The linked identities, each as {@link identityKey}. */
  identities: readonly string[];
}

/** State of a user with no events. */
export const initialLoginState: LoginState = {
  exists: false,
  email: null,
  name: null,
  emailVerified: false,
  identities: [],
};

/** The key of an identity in {@link LoginState.identities}: issuer and subject. */
export const identityKey = (issuer: string, subject: string): string =>
  JSON.stringify([issuer, subject]);

/** Event types of {@link LoginEvent}, to pick them from a stream that may hold others. */
export const LOGIN_EVENT_TYPES: readonly string[] = [
  'UserRegistered',
  'UserEmailVerified',
  'UserPasswordChanged',
  'UserIdentityLinked',
];

/** Applies one event to the login state (pure). */
export function evolveLogin(state: LoginState, event: LoginEvent): LoginState {
  switch (event.type) {
    case 'UserIdentityLinked': {
      const key = identityKey(event.data.issuer, event.data.subject);
      return state.identities.includes(key)
        ? state
        : { ...state, identities: [...state.identities, key] };
    }
    case 'UserEmailVerified':
      return { ...state, emailVerified: true };
    case 'UserRegistered':
      return { ...state, ...evolveUser(state, event), emailVerified: false };
    case 'UserPasswordChanged':
      return { ...state, ...evolveUser(state, event) };
  }
}
