import { retryTimerId } from './projection.ts';
import { decideFailure, evolveEmail, initialEmailState, type EmailEvent } from './events.ts';

const policy = { baseMs: 1000, maxAttempts: 3 };
const now = new Date('2025-01-01T00:00:00.000Z');
const given = (events: EmailEvent[]) => events.reduce(evolveEmail, initialEmailState());

describe('delivery decisions', () => {
  it('defers a transient failure with exponential backoff', () => {
    expect(decideFailure(given([]), { message: '451', transient: true }, policy, now)).toEqual({
      type: 'EmailDeferred',
      data: { attempt: 1, error: '451', retryAt: '2025-01-01T00:00:01.000Z' },
    });
    const once: EmailEvent = {
      type: 'EmailDeferred',
      data: { attempt: 1, error: '451', retryAt: '' },
    };
    expect(decideFailure(given([once]), { message: '451', transient: true }, policy, now)).toEqual({
      type: 'EmailDeferred',
      data: { attempt: 2, error: '451', retryAt: '2025-01-01T00:00:02.000Z' },
    });
  });

  it('fails after maxAttempts or on a permanent error', () => {
    const twice: EmailEvent[] = [1, 2].map((attempt) => ({
      type: 'EmailDeferred',
      data: { attempt, error: '451', retryAt: '' },
    }));
    expect(decideFailure(given(twice), { message: '451', transient: true }, policy, now).type).toBe(
      'EmailFailed',
    );
    expect(decideFailure(given([]), { message: '550', transient: false }, policy, now)).toEqual({
      type: 'EmailFailed',
      data: { error: '550', failedAt: now.toISOString() },
    });
  });

  const queued: EmailEvent = {
    type: 'EmailQueued',
    data: {
      emailId: 'e1',
      contactId: 'c1',
      to: { email: 'gone@example.org' },
      from: { email: 'news@example.com' },
      subject: 'Hi',
      html: '<p>Hi</p>',
      headers: {},
      attachments: [],
      sandbox: false,
    },
  };

  it('takes a permanent SMTP reply for a hard bounce of the recipient', () => {
    const refused = { message: '550 5.1.1 no such user', transient: false, responseCode: 550 };
    expect(decideFailure(given([queued]), refused, policy, now)).toEqual({
      type: 'EmailBounced',
      data: {
        bounceType: 'hard',
        source: 'smtp',
        recipient: 'gone@example.org',
        responseCode: 550,
        diagnostic: '550 5.1.1 no such user',
        bouncedAt: now.toISOString(),
      },
    });
  });

  it('retries a soft bounce, and takes it for a hard bounce once the retries are spent', () => {
    const soft = { message: '452 mailbox full', transient: true, responseCode: 452 };
    expect(decideFailure(given([queued]), soft, policy, now).type).toBe('EmailDeferred');
    const twice: EmailEvent[] = [1, 2].map((attempt) => ({
      type: 'EmailDeferred',
      data: { attempt, error: '452', retryAt: '' },
    }));
    expect(decideFailure(given([queued, ...twice]), soft, policy, now)).toMatchObject({
      type: 'EmailBounced',
      data: { responseCode: 452, recipient: 'gone@example.org' },
    });
    // A relay that cannot be reached is no bounce: the email failed, the address is fine.
    const unreachable = { message: 'ECONNREFUSED', transient: true };
    expect(decideFailure(given([queued, ...twice]), unreachable, policy, now).type).toBe(
      'EmailFailed',
    );
  });

  it('marks sent and failed emails done', () => {
    expect(
      given([
        {
          type: 'EmailSent',
          data: { messageId: 'm', response: '250', transport: 'smtp', sentAt: '' },
        },
      ]).done,
    ).toBe(true);
  });

  it('derives deterministic retry timer ids', () => {
    expect(retryTimerId('e1', 1)).toBe(retryTimerId('e1', 1));
    expect(retryTimerId('e1', 1)).not.toBe(retryTimerId('e1', 2));
    expect(retryTimerId('e1', 1)).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
  });
});
