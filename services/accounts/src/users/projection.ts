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
  createdAt: string;
  revision: number;
}

/** Projects one event of a user stream. */
export async function projectUser(views: ViewStore, recorded: RecordedEvent): Promise<void> {
  const event = { type: recorded.type, data: recorded.data } as UserEvent;
  if (event.type !== 'UserRegistered') return;
  const { email, name, passwordHash } = event.data;
  await applyAtRevision(
    views.collection(USERS_VIEW),
    entityIdOf(recorded.streamId),
    recorded.revision,
    { $set: { email, name, passwordHash: passwordHash ?? null, createdAt: recorded.createdAt } },
    true,
  );
}
