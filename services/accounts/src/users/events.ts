/** Events of the `user-<id>` streams and the `userEmail-<id>` claims (accounts service). */
import { derivedId } from '@stamp/platform';

/** Stream id of a user. */
export const userStreamId = (userId: string): string => `user-${userId}`;

/** Stream id of the claim of `email` (lower-cased) by a user account: one account per address. */
export const userEmailStreamId = (email: string): string =>
  `userEmail-${derivedId(`user-email:${email.trim().toLowerCase()}`)}`;

/** A user was registered: the bootstrap's administrator (no password), or a sign-up. */
export interface UserRegistered {
  type: 'UserRegistered';
  /**
   * `passwordHash`: argon2id PHC string sealed with the platform secret (`Secrets.seal`); absent
   * for a user who cannot log in.
   */
  data: { email: string; name: string; passwordHash?: string };
}

/** The user confirmed `email` with the link sent to it. */
export interface UserEmailVerified {
  type: 'UserEmailVerified';
  data: { email: string };
}

/** The password was reset (sealed argon2id hash); sessions issued before end. */
export interface UserPasswordChanged {
  type: 'UserPasswordChanged';
  data: { passwordHash: string };
}

/** Every event of a user stream. */
export type UserEvent = UserRegistered | UserEmailVerified | UserPasswordChanged;

/** State of a user folded from its stream. */
export interface UserState {
  exists: boolean;
  email: string | null;
  name: string | null;
}

/** State of a user with no events. */
export const initialUserState: UserState = { exists: false, email: null, name: null };

/** Applies one event to the user state (pure). */
export function evolveUser(state: UserState, event: UserEvent): UserState {
  switch (event.type) {
    case 'UserRegistered':
      return { exists: true, email: event.data.email, name: event.data.name };
    case 'UserEmailVerified':
    case 'UserPasswordChanged':
      return state;
  }
}
