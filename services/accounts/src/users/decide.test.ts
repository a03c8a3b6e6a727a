import { ApiError } from '@stamp/http-kit';

import { registerUser } from './decide.ts';
import { evolveUser, initialUserState } from './events.ts';

describe('registerUser', () => {
  it('given no events, when registering, then UserRegistered with the normalised email', () => {
    expect(registerUser(initialUserState, { email: ' Admin@Example.COM ', name: 'Ada' })).toEqual([
      { type: 'UserRegistered', data: { email: 'admin@example.com', name: 'Ada' } },
    ]);
  });

  it('given a registered user, when registering again, then 409', () => {
    const state = evolveUser(initialUserState, {
      type: 'UserRegistered',
      data: { email: 'a@b.c', name: 'A' },
    });
    expect(() => registerUser(state, { email: 'a@b.c', name: 'A' })).toThrow(ApiError);
  });

  it('given no events, when the email is invalid, then 422', () => {
    expect(() => registerUser(initialUserState, { email: 'nope', name: 'A' })).toThrow(
      expect.objectContaining({ status: 422 }) as Error,
    );
  });
});
