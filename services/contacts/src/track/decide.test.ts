import { eventData, isReservedEventName } from './decide.ts';

describe('reserved event names', () => {
  it.each([
    ['email.sent', true],
    ['email.open', true],
    ['contact.subscribed', true],
    ['contact.unsubscribed', true],
    ['segment.vip.entry', true],
    ['segment.big-spenders.exit', true],
    ['signup', false],
    ['contact.created', false],
    ['segment.entry', false],
    ['emails.sent', false],
  ])('%s reserved: %s', (name, reserved) => {
    expect(isReservedEventName(name)).toBe(reserved);
  });

  it('keeps primitive event data', () => {
    expect(eventData({ a: 1, b: null, c: { value: 'x', persistent: false } })).toEqual({
      a: 1,
      c: 'x',
    });
  });
});
