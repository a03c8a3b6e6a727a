import { conflict, validationError } from '@stamp/http-kit';

import type { UserEvent, UserState } from './events.ts';

/** Command: register a user with a normalised (trimmed, lower-cased) email. */
export interface RegisterUser {
  email: string;
  name: string;
  /** The password, already hashed (argon2id PHC string) and sealed; none for the bootstrap's user. */
  passwordHash?: string;
}

const EMAIL = /^[^\s@]+@[^\s@]+$/;

/**
 * Decides {@link RegisterUser}: one UserRegistered.
 * @throws ApiError 409 CONFLICT when the user already exists; 422 for an invalid email or name
 * (name 1..100 characters).
 */
export function registerUser(state: UserState, command: RegisterUser): UserEvent[] {
  if (state.exists) throw conflict('User already exists');
  const email = command.email.trim().toLowerCase();
  if (!EMAIL.test(email) || email.length > 254) {
    throw validationError([{ field: 'email', message: 'Invalid email', code: 'invalid_format' }]);
  }
  const name = command.name.trim();
  if (name.length === 0 || name.length > 100) {
    throw validationError([
      { field: 'name', message: 'Name must have 1 to 100 characters', code: 'invalid_length' },
    ]);
  }
  const { passwordHash } = command;
  return [
    {
      type: 'UserRegistered',
      data: { email, name, ...(passwordHash === undefined ? {} : { passwordHash }) },
    },
  ];
}
