import { decideReport } from './decide.ts';
import { arfReport, dsnReport } from '@stamp/testkit/reports.ts';
import { readReport } from './reports.ts';
import { Secrets } from '@stamp/platform';
import { readVerpAddress, verpAddress } from './verp.ts';

const now = new Date('2026-11-24T12:00:00.000Z');
const target = { recipient: 'gone@example.org', bounced: false, complained: false };

describe('VERP return paths', () => {
  const secrets = new Secrets('verp-test-secret-0123456789abcdef0123');
  const id = '0193a0b0-1234-7abc-8def-0123456789ab';

  it('name the email within 64 octets and read back only what was made here', () => {
    const address = verpAddress(secrets, id, 'bounce.example.com') ?? '';
    expect(address).toMatch(/^b-[0-9a-f]{32}-[0-9a-f]{20}@bounce\.example\.com$/);
    expect(address.split('@')[0]?.length).toBeLessThanOrEqual(64);
    expect(readVerpAddress(secrets, address)).toBe(id);
    expect(readVerpAddress(secrets, address.toUpperCase())).toBe(id);
    // Another id with this tag, another secret, another shape: nothing.
    expect(readVerpAddress(secrets, address.replace('b-0193', 'b-0194'))).toBeNull();
    expect(readVerpAddress(new Secrets('x'.repeat(40)), address)).toBeNull();
    expect(readVerpAddress(secrets, 'postmaster@bounce.example.com')).toBeNull();
    expect(readVerpAddress(secrets, '@bounce.example.com')).toBeNull();
    expect(verpAddress(secrets, 'not-a-uuid', 'bounce.example.com')).toBeNull();
  });
});

describe('reports', () => {
  it('read a DSN: its recipients, actions, statuses and diagnostics (folded lines joined)', async () => {
    const report = await readReport(dsnReport('b@x', 'gone@example.org', '5.1.1'));
    expect(report).toMatchObject({
      kind: 'delivery-status',
      recipients: [{ finalRecipient: 'gone@example.org', action: 'failed', status: '5.1.1' }],
    });
    const [recipient] = report.kind === 'delivery-status' ? report.recipients : [];
    expect(recipient?.diagnostic).toMatch(/^550 5\.1\.1 <gone@example\.org>:\s+Recipient/);
  });

  it('read an ARF report, and anything else as other', async () => {
    expect(await readReport(arfReport('b@x', 'gone@example.org'))).toEqual({
      kind: 'complaint',
      feedbackType: 'abuse',
      userAgent: 'ExampleFBL/1.0',
    });
    expect(await readReport('Subject: hi\r\n\r\nJust a note')).toEqual({ kind: 'other' });
    expect(await readReport(Buffer.from([0, 1, 2, 255]))).toEqual({ kind: 'other' });
  });

  it('decide a hard bounce on 5.x.x only, once', async () => {
    const hard = await readReport(dsnReport('b@x', 'gone@example.org', '5.1.1'));
    expect(decideReport(hard, target, now)).toMatchObject({
      type: 'EmailBounced',
      data: {
        bounceType: 'hard',
        source: 'dsn',
        recipient: 'gone@example.org',
        status: '5.1.1',
        bouncedAt: now.toISOString(),
      },
    });
    expect(JSON.stringify(decideReport(hard, target, now))).toContain('550 5.1.1');
    expect(decideReport(hard, { ...target, bounced: true }, now)).toBeNull();
    const soft = await readReport(dsnReport('b@x', 'gone@example.org', '4.2.2'));
    expect(decideReport(soft, target, now)).toBeNull();
  });

  it('decide a complaint once, and not on not-spam or auth-failure reports', async () => {
    const abuse = await readReport(arfReport('b@x', 'gone@example.org'));
    expect(decideReport(abuse, target, now)).toEqual({
      type: 'EmailComplained',
      data: {
        feedbackType: 'abuse',
        userAgent: 'ExampleFBL/1.0',
        recipient: 'gone@example.org',
        complainedAt: now.toISOString(),
      },
    });
    expect(decideReport(abuse, { ...target, complained: true }, now)).toBeNull();
    for (const type of ['not-spam', 'auth-failure']) {
      const report = await readReport(arfReport('b@x', 'gone@example.org', type));
      expect(decideReport(report, target, now)).toBeNull();
    }
    expect(decideReport({ kind: 'other' }, target, now)).toBeNull();
  });
});
