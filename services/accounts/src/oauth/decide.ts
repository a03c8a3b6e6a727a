/**
 * Decisions of OpenID Connect login (pure): linking a provider identity to a user found by its
 * verified email, and registering a user from a provider identity.
 */
import { conflict, notFound } from '@stamp/http-kit';

import { registerUser } from '../users/decide.ts';
import { initialUserState, type UserEmailVerified, type UserRegistered } from '../users/events.ts';
import { identityKey, type LoginState, type UserIdentityLinked } from './events.ts';

/** An identity a provider vouched for: a verified address, normalised (trimmed, lower-cased). */
export interface ProviderIdentity {
  /** Id of the configured provider. */
  provider: string;
  /** The ID token's `iss`. */
  issuer: string;
  /** The ID token's `sub`. */
  subject: string;
  /** The verified address, trimmed and lower-cased. */
  email: string;
}

/** Command: log the user with the identity's email in through the identity. */
export type LinkIdentity = ProviderIdentity;

/** Command: register a user from an identity, with a display name. */
export interface RegisterWithIdentity extends ProviderIdentity {
  /** Display name (the provider's `name` claim, else the address's local part). */
  name: string;
}

const linked = (identity: ProviderIdentity): UserIdentityLinked => ({
  type: 'UserIdentityLinked',
  data: {
    provider: identity.provider,
    issuer: identity.issuer,
    subject: identity.subject,
    email: identity.email,
  },
});

/**
 * Decides {@link LinkIdentity} for the user owning the identity's address: UserIdentityLinked
 * unless that identity is linked already, and UserEmailVerified when the address was not
 * confirmed yet (the provider vouches for it). No events when both hold: a repeated login changes
 * nothing.
 * @throws ApiError 404 RESOURCE_NOT_FOUND when the user does not exist; 409 CONFLICT when the
 *   user's address is not the identity's.
 */
export function linkIdentity(
  state: LoginState,
  command: LinkIdentity,
): (UserIdentityLinked | UserEmailVerified)[] {
  if (!state.exists) throw notFound('RESOURCE_NOT_FOUND', 'User not found');
  if (state.email !== command.email) {
    throw conflict('This account belongs to another address');
  }
  const events: (UserIdentityLinked | UserEmailVerified)[] = [];
  if (!state.identities.includes(identityKey(command.issuer, command.subject))) {
    events.push(linked(command));
  }
  if (!state.emailVerified) {
    events.push({ type: 'UserEmailVerified', data: { email: command.email } });
  }
  return events;
}

/**
 * Decides {@link RegisterWithIdentity}: UserRegistered without a password (password login then
 * fails like a wrong password), UserEmailVerified and UserIdentityLinked. The name is cut to 100
 * characters; an empty one becomes the address's local part.
 * @throws ApiError 422 VALIDATION_ERROR for an invalid email.
 */
export function registerWithIdentity(
  command: RegisterWithIdentity,
): (UserRegistered | UserEmailVerified | UserIdentityLinked)[] {
  const name = Array.from(command.name.trim()).slice(0, 100).join('').trim();
  const registered = registerUser(initialUserState, {
    email: command.email,
    name: name === '' ? (command.email.split('@')[0] ?? command.email) : name,
  }) as UserRegistered[];
  return [
    ...registered,
    { type: 'UserEmailVerified', data: { email: command.email } },
    linked(command),
  ];
}
