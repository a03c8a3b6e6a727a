import { ApiError } from '@stamp/http-kit';

import { linkIdentity, registerWithIdentity } from './decide.ts';
import { evolveLogin, initialLoginState, type LoginEvent, type LoginState } from './events.ts';

const given = (...events: LoginEvent[]): LoginState =>
  events.reduce(evolveLogin, initialLoginState);

const identity = {
  provider: 'google',
  issuer: 'https://accounts.google.com',
  subject: '1234',
  email: 'ada@example.org',
};
const registered: LoginEvent = {
  type: 'UserRegistered',
  data: { email: 'ada@example.org', name: 'Ada', passwordHash: 'v1.a.b.c' },
};
const verified: LoginEvent = { type: 'UserEmailVerified', data: { email: 'ada@example.org' } };
const linked: LoginEvent = { type: 'UserIdentityLinked', data: identity };

function thrown(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('nothing thrown');
}

describe('linkIdentity', () => {
  it('links a new identity and confirms an unconfirmed address', () => {
    expect(linkIdentity(given(registered), identity)).toEqual([
      { type: 'UserIdentityLinked', data: identity },
      { type: 'UserEmailVerified', data: { email: 'ada@example.org' } },
    ]);
  });

  it('links only, when the address is confirmed', () => {
    expect(linkIdentity(given(registered, verified), identity)).toEqual([
      { type: 'UserIdentityLinked', data: identity },
    ]);
  });

  it('decides nothing for a linked identity of a confirmed address', () => {
    expect(linkIdentity(given(registered, verified, linked), identity)).toEqual([]);
  });

  it('links another subject of the same provider', () => {
    expect(
      linkIdentity(given(registered, verified, linked), { ...identity, subject: '5678' }),
    ).toEqual([{ type: 'UserIdentityLinked', data: { ...identity, subject: '5678' } }]);
  });

  it('refuses a missing user, and a user of another address', () => {
    expect(thrown(() => linkIdentity(given(), identity)).status).toBe(404);
    expect(
      thrown(() => linkIdentity(given(registered), { ...identity, email: 'bob@example.org' }))
        .status,
    ).toBe(409);
  });
});

describe('registerWithIdentity', () => {
  it('registers without a password, confirmed and linked', () => {
    expect(registerWithIdentity({ ...identity, name: ' Ada Lovelace ' })).toEqual([
      { type: 'UserRegistered', data: { email: 'ada@example.org', name: 'Ada Lovelace' } },
      { type: 'UserEmailVerified', data: { email: 'ada@example.org' } },
      { type: 'UserIdentityLinked', data: identity },
    ]);
  });

  it('names the user after the address without a name, and cuts a long one', () => {
    const [first] = registerWithIdentity({ ...identity, name: '' });
    expect(first?.data).toEqual({ email: 'ada@example.org', name: 'ada' });
    const [long] = registerWithIdentity({ ...identity, name: 'x'.repeat(300) });
    expect((long?.data as { name: string }).name).toHaveLength(100);
  });

  it('refuses an invalid address', () => {
    expect(
      thrown(() => registerWithIdentity({ ...identity, email: 'nope', name: 'x' })).status,
    ).toBe(422);
  });
});
