/**
 * The `users` view (consumer group `accounts-users`, topic `user`): one document per user, with
 * the password hash the login checks. Idempotent by stream revision.
 */
import { entityIdOf } from '@stamp/contracts';
import {
  applyAtRevision,
  type RecordedEvent,
  type ViewDocument,
  type ViewStore,
} from '@stamp/platform';

import type { UserEvent } from './events.ts';

/** Consumer group of the users view. */
export const USERS_GROUP = 'accounts-users';

/** View of the users. */
export const USERS_VIEW = 'users';

/** A user (`_id`: the user id). Dates ISO 8601. */
export interface UserView extends ViewDocument {
  email: string;
  name: string;
  /** argon2id PHC string, sealed; null for a user who cannot log in. */
  passwordHash: string | null;
  /** Whether the user confirmed the address (`email`) with the link sent to it. */
  emailVerified: boolean;
  /** ISO 8601 time of the last password reset: sessions issued before it are over. */
  passwordChangedAt: string | null;
  createdAt: string;
  revision: number;
}

/** Projects one event of a user stream. */
export async function projectUser(views: ViewStore, recorded: RecordedEvent): Promise<void> {
  const event = { type: recorded.type, data: recorded.data } as UserEvent;
  const users = views.collection(USERS_VIEW);
  const id = entityIdOf(recorded.streamId);
  switch (event.type) {
    case 'UserRegistered': {
      const { email, name, passwordHash } = event.data;
      const document = {
        email,
        name,
        passwordHash: passwordHash ?? null,
        emailVerified: false,
        passwordChangedAt: null,
        createdAt: recorded.createdAt,
      };
      await applyAtRevision(users, id, recorded.revision, { $set: document }, true);
      return;
    }
    case 'UserEmailVerified':
      await applyAtRevision(users, id, recorded.revision, { $set: { emailVerified: true } }, false);
      return;
    case 'UserPasswordChanged': {
      const set = { passwordHash: event.data.passwordHash, passwordChangedAt: recorded.createdAt };
      await applyAtRevision(users, id, recorded.revision, { $set: set }, false);
      return;
    }
  }
}
