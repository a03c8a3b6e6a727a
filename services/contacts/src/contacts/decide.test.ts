import { ApiError } from '@stamp/http-kit';

import { decide } from './decide.ts';
import { type ContactEvent, type ContactState, evolve, initialContact } from './events.ts';

const given = (...events: ContactEvent[]): ContactState => events.reduce(evolve, initialContact());
const created = (subscribed = true, data = {}): ContactEvent => ({
  type: 'ContactCreated',
  data: { email: 'a@x.com', subscribed, data },
});

describe('contact decider', () => {
  it('create: ContactCreated with the stored data', () => {
    expect(
      decide(given(), {
        type: 'CreateContact',
        email: 'a@x.com',
        subscribed: false,
        patch: { set: { plan: 'pro' }, unset: ['gone'] },
      }),
    ).toEqual([
      {
        type: 'ContactCreated',
        data: { email: 'a@x.com', subscribed: false, data: { plan: 'pro' } },
      },
    ]);
  });

  it('create on an existing stream is a conflict', () => {
    expect(() =>
      decide(given(created()), {
        type: 'CreateContact',
        email: 'a@x.com',
        subscribed: true,
        patch: { set: {}, unset: [] },
      }),
    ).toThrow(ApiError);
  });

  it('update with nothing new appends nothing', () => {
    expect(
      decide(given(created(true, { plan: 'pro' })), {
        type: 'UpdateContact',
        email: 'a@x.com',
        subscribed: true,
        patch: { set: { plan: 'pro' }, unset: ['absent'] },
      }),
    ).toEqual([]);
  });

  it('update changes only the keys that differ', () => {
    expect(
      decide(given(created(true, { plan: 'pro', seats: 1 })), {
        type: 'UpdateContact',
        patch: { set: { plan: 'pro', seats: 2 }, unset: ['plan'] },
      }),
    ).toEqual([{ type: 'ContactDataChanged', data: { set: { seats: 2 }, unset: [] } }]);
  });

  it('a subscription flip emits once, a repeat emits nothing', () => {
    const state = given(created(true));
    const events = decide(state, { type: 'UpdateContact', subscribed: false });
    expect(events).toEqual([{ type: 'ContactUnsubscribed', data: {} }]);
    const after = events.reduce(evolve, state);
    expect(decide(after, { type: 'UpdateContact', subscribed: false })).toEqual([]);
    expect(decide(after, { type: 'UpdateContact', subscribed: true })).toEqual([
      { type: 'ContactSubscribed', data: {} },
    ]);
  });

  it('email change emits ContactEmailChanged', () => {
    expect(decide(given(created()), { type: 'UpdateContact', email: 'b@x.com' })).toEqual([
      { type: 'ContactEmailChanged', data: { from: 'a@x.com', to: 'b@x.com' } },
    ]);
  });

  it('update or delete of a deleted contact is 404', () => {
    const deleted = given(created(), { type: 'ContactDeleted', data: {} });
    expect(() => decide(deleted, { type: 'UpdateContact', subscribed: false })).toThrow(
      expect.objectContaining({ status: 404, code: 'CONTACT_NOT_FOUND' }) as Error,
    );
    expect(() => decide(given(), { type: 'DeleteContact' })).toThrow(ApiError);
    expect(decide(given(created()), { type: 'DeleteContact' })).toEqual([
      { type: 'ContactDeleted', data: {} },
    ]);
  });
});
