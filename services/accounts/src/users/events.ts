/** Events of the `user-<id>` streams (accounts service). */

/** Stream id of a user. */
export const userStreamId = (userId: string): string => `user-${userId}`;

/** A user was registered (bootstrap today; sign-up later). */
export interface UserRegistered {
  type: 'UserRegistered';
  data: { email: string; name: string };
}

/** Every event of a user stream. */
export type UserEvent = UserRegistered;

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
  }
}
