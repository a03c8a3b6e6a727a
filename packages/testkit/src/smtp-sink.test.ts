import { generateKeyPairSync } from 'node:crypto';

import { DeliveryError, SmtpMailer } from '@stamp/platform';

import { parseMessage, startSmtpSink, verifyDkim } from './smtp-sink.ts';

const message = {
  emailId: '0193a000-0000-7000-8000-000000000001',
  projectId: 'p1',
  from: { name: 'Sender', address: 'hello@example.test' },
  to: { address: 'rcpt@example.org' },
  subject: 'Hi there',
  html: '<p>Hello</p>',
  headers: { 'X-Custom': 'yes' },
};

describe('startSmtpSink', () => {
  it('accepts messages sent by SmtpMailer and keeps envelope and raw bytes', async () => {
    const sink = await startSmtpSink();
    const mailer = new SmtpMailer({ url: sink.url });
    try {
      expect(sink.url).toBe(`smtp://127.0.0.1:${sink.port}`);
      const receipt = await mailer.send(message);
      expect(receipt.response).toMatch(/^250/);
      await sink.waitFor(1, 2000);
      const [received] = sink.messages;
      expect(received?.envelope).toEqual({
        from: 'hello@example.test',
        to: ['rcpt@example.org'],
      });
      const parsed = await parseMessage(received?.raw ?? '');
      expect(parsed.subject).toBe('Hi there');
      expect(parsed.html).toContain('<p>Hello</p>');
      expect(parsed.headers.get('x-custom')).toBe('yes');
    } finally {
      await mailer.close();
      await sink.close();
    }
  });

  it('answers 451 to the first N DATA commands (transient DeliveryError)', async () => {
    const sink = await startSmtpSink({ failFirst: 1 });
    const mailer = new SmtpMailer({ url: sink.url });
    try {
      const failure = await mailer.send(message).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(DeliveryError);
      expect((failure as DeliveryError).transient).toBe(true);
      expect((failure as DeliveryError).responseCode).toBe(451);
      expect(sink.messages).toHaveLength(0);
      await mailer.send(message);
      await sink.waitFor(1, 2000);
      expect(sink.messages).toHaveLength(1);
    } finally {
      await mailer.close();
      await sink.close();
    }
  });

  it('waitFor rejects after the timeout', async () => {
    const sink = await startSmtpSink();
    try {
      await expect(sink.waitFor(1, 50)).rejects.toThrow('0 of 1 messages');
    } finally {
      await sink.close();
    }
  });

  it('verifyDkim checks a signature against the given TXT record', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const sink = await startSmtpSink();
    const mailer = new SmtpMailer({ url: sink.url });
    try {
      await mailer.send({
        ...message,
        dkim: {
          domainName: 'example.test',
          keySelector: 'sel',
          privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
        },
      });
      await sink.waitFor(1, 2000);
      const der = publicKey.export({ type: 'spki', format: 'der' }).toString('base64');
      const raw = sink.messages[0]?.raw ?? '';
      const good = await verifyDkim(raw, {
        'sel._domainkey.example.test': `v=DKIM1; k=rsa; p=${der}`,
      });
      expect(good).toEqual([{ result: 'pass', signingDomain: 'example.test', selector: 'sel' }]);
      const other = generateKeyPairSync('rsa', { modulusLength: 2048 })
        .publicKey.export({ type: 'spki', format: 'der' })
        .toString('base64');
      const bad = await verifyDkim(raw, {
        'sel._domainkey.example.test': `v=DKIM1; k=rsa; p=${other}`,
      });
      expect(bad[0]?.result).not.toBe('pass');
    } finally {
      await mailer.close();
      await sink.close();
    }
  });
});
