import { decideReport } from '../inbound/decide.ts';
import { bareMessageId, readSesNotification } from './notifications.ts';

const mail = { commonHeaders: { messageId: '<m1@example.com>' } };
const target = { recipient: 'a@example.org', bounced: false, complained: false };
const now = new Date('2026-11-24T12:00:00.000Z');

describe('SES notifications', () => {
  it('take a permanent bounce for a hard bounce and a transient one for none', () => {
    const permanent = readSesNotification(
      JSON.stringify({
        notificationType: 'Bounce',
        mail,
        bounce: {
          bounceType: 'Permanent',
          bouncedRecipients: [{ emailAddress: 'a@example.org', diagnosticCode: 'smtp; 550 no' }],
        },
      }),
    );
    expect(permanent?.messageId).toBe('m1@example.com');
    expect(decideReport(permanent!.report, target, now, 'sns')).toMatchObject({
      type: 'EmailBounced',
      data: { source: 'sns', status: '5.0.0', diagnostic: '550 no' },
    });
    const transient = readSesNotification(
      JSON.stringify({
        notificationType: 'Bounce',
        mail,
        bounce: { bounceType: 'Transient', bouncedRecipients: [{ status: '4.4.7' }] },
      }),
    );
    expect(decideReport(transient!.report, target, now, 'sns')).toBeNull();
  });

  it('read complaints, ignore deliveries, and find the Message-ID in the headers too', () => {
    const complaint = readSesNotification(
      JSON.stringify({
        eventType: 'Complaint',
        mail: { headers: [{ name: 'Message-ID', value: '<m2@example.com>' }] },
        complaint: {},
      }),
    );
    expect(complaint).toEqual({
      messageId: 'm2@example.com',
      report: { kind: 'complaint', feedbackType: 'abuse' },
    });
    const delivery = readSesNotification(JSON.stringify({ notificationType: 'Delivery', mail }));
    expect(delivery?.report).toEqual({ kind: 'other' });
    expect(
      readSesNotification(JSON.stringify({ notificationType: 'Bounce', mail: {} })),
    ).toBeNull();
    expect(readSesNotification('not json')).toBeNull();
    expect(readSesNotification('[]')).toBeNull();
    expect(bareMessageId(' <a@b> ')).toBe('a@b');
  });
});
