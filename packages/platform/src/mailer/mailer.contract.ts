import { generateKeyPairSync } from 'node:crypto';

import { type ParsedMail, parseMessage, verifyDkim } from '@stamp/testkit/smtp-sink.ts';

import { newId } from '../ids.ts';
import type { DeliveryReceipt, Mailer, OutgoingMessage } from './mailer.ts';

/** What a mailer contract run needs: a mailer and a way to read back what it delivered. */
export interface MailerFixture {
  mailer: Mailer;
  /**
   * The raw RFC 5322 message delivered (or captured) for `emailId`, exactly as the receiving side
   * holds it; undefined when nothing arrived for that id.
   */
  delivered(emailId: string): Promise<Buffer | string | undefined>;
  /** Closes the mailer and whatever receives its messages. */
  close(): Promise<void>;
}

/** A 1×1 transparent PNG, base64. */
const PIXEL_PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';

/** A message with every optional part set; `emailId` fresh per call. */
export function sampleMessage(overrides: Partial<OutgoingMessage> = {}): OutgoingMessage {
  return {
    emailId: newId(),
    projectId: 'project-1',
    from: { name: 'Acme Billing', address: 'billing@acme.example' },
    to: { name: 'Ada Lovelace', address: 'ada@customer.example' },
    replyTo: 'support@acme.example',
    subject: 'Your invoice #42 — ready',
    html: '<p>Hello Ada, <img src="cid:logo@acme"> your invoice is attached.</p>',
    headers: { 'X-Campaign': 'spring-2025', 'List-Unsubscribe': '<mailto:unsub@acme.example>' },
    attachments: [
      {
        filename: 'invoice.txt',
        content: Buffer.from('Invoice 42: 10.00 EUR\n').toString('base64'),
        contentType: 'text/plain',
      },
      {
        filename: 'logo.png',
        content: PIXEL_PNG,
        contentType: 'image/png',
        contentId: 'logo@acme',
        disposition: 'inline',
      },
    ],
    ...overrides,
  };
}

function firstAddress(field: ParsedMail['to']): {
  name: string | undefined;
  address: string | undefined;
} {
  const object = Array.isArray(field) ? field[0] : field;
  const mailbox = object?.value[0];
  return { name: mailbox?.name, address: mailbox?.address };
}

/**
 * Contract suite of the Mailer port (architecture brief, "Ports" and "Delivery"): the message
 * arrives intact (addresses, subject, HTML, custom headers, `X-Stamp-Email-Id`, Message-ID
 * `<emailId@fromdomain>`, regular and inline attachments), a DKIM key signs it verifiably, and
 * `commit` runs once after acceptance with its failure propagated. `make` returns a fresh
 * fixture (the suite closes it).
 */
export function mailerContract(name: string, make: () => Promise<MailerFixture>): void {
  describe(`Mailer contract: ${name}`, () => {
    let fixture: MailerFixture;
    beforeEach(async () => {
      fixture = await make();
    });
    afterEach(async () => {
      await fixture.close();
    });

    const deliveredOf = async (emailId: string): Promise<Buffer | string> => {
      const raw = await fixture.delivered(emailId);
      if (raw === undefined) throw new Error(`nothing delivered for ${emailId}`);
      return raw;
    };

    it('delivers addresses, subject, HTML, headers and the Stamp ids intact', async () => {
      const message = sampleMessage();
      const receipt = await fixture.mailer.send(message);
      expect(receipt.messageId).toBe(`<${message.emailId}@acme.example>`);

      const parsed = await parseMessage(await deliveredOf(message.emailId));
      expect(firstAddress(parsed.from)).toEqual({
        name: 'Acme Billing',
        address: 'billing@acme.example',
      });
      expect(firstAddress(parsed.to)).toEqual({
        name: 'Ada Lovelace',
        address: 'ada@customer.example',
      });
      expect(firstAddress(parsed.replyTo).address).toBe('support@acme.example');
      expect(parsed.subject).toBe('Your invoice #42 — ready');
      // mailparser resolves `cid:` references to the inline part: proof the link holds.
      expect(parsed.html).toContain(`Hello Ada, <img src="data:image/png;base64,${PIXEL_PNG}">`);
      expect(parsed.messageId).toBe(`<${message.emailId}@acme.example>`);
      expect(parsed.headers.get('x-stamp-email-id')).toBe(message.emailId);
      expect(parsed.headers.get('x-campaign')).toBe('spring-2025');
      expect(parsed.headerLines.find((header) => header.key === 'list-unsubscribe')?.line).toBe(
        'List-Unsubscribe: <mailto:unsub@acme.example>',
      );
    });

    it('keeps regular and inline attachments intact', async () => {
      const message = sampleMessage();
      await fixture.mailer.send(message);
      const parsed = await parseMessage(await deliveredOf(message.emailId));
      const byName = new Map(parsed.attachments.map((item) => [item.filename, item]));

      const invoice = byName.get('invoice.txt');
      expect(invoice?.contentType).toBe('text/plain');
      expect(invoice?.contentDisposition).toBe('attachment');
      expect(invoice?.content.toString('utf8')).toBe('Invoice 42: 10.00 EUR\n');

      const logo = byName.get('logo.png');
      expect(logo?.contentType).toBe('image/png');
      expect(logo?.contentDisposition).toBe('inline');
      expect(logo?.cid).toBe('logo@acme');
      expect(logo?.content.toString('base64')).toBe(PIXEL_PNG);
    });

    it('signs with the given DKIM key so that the signature verifies', async () => {
      const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
      const message = sampleMessage({
        dkim: {
          domainName: 'acme.example',
          keySelector: 'stamp1',
          privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
        },
      });
      await fixture.mailer.send(message);
      const raw = await deliveredOf(message.emailId);
      const record = `v=DKIM1; k=rsa; p=${publicKey.export({ type: 'spki', format: 'der' }).toString('base64')}`;
      expect(await verifyDkim(raw, { 'stamp1._domainkey.acme.example': record })).toEqual([
        { result: 'pass', signingDomain: 'acme.example', selector: 'stamp1' },
      ]);
      const unsigned = sampleMessage();
      await fixture.mailer.send(unsigned);
      const results = await verifyDkim(await deliveredOf(unsigned.emailId), {});
      expect(results.every((result) => result.result !== 'pass')).toBe(true);
    });

    it('calls commit once, with the receipt, after the message was accepted', async () => {
      const message = sampleMessage();
      const commits: { receipt: DeliveryReceipt; arrived: boolean }[] = [];
      const receipt = await fixture.mailer.send(message, async (given) => {
        commits.push({
          receipt: given,
          arrived: (await fixture.delivered(message.emailId)) !== undefined,
        });
      });
      expect(commits).toEqual([{ receipt, arrived: true }]);
      expect(receipt.messageId).toBe(`<${message.emailId}@acme.example>`);
      expect(receipt.response).toMatch(/^250\b/);
    });

    it("propagates commit's rejection, and keeps delivering afterwards", async () => {
      const failing = sampleMessage();
      await expect(
        fixture.mailer.send(failing, () => Promise.reject(new Error('could not record'))),
      ).rejects.toThrow('could not record');
      const next = sampleMessage();
      let committed = 0;
      await fixture.mailer.send(next, () => {
        committed += 1;
        return Promise.resolve();
      });
      expect(committed).toBe(1);
      expect(await fixture.delivered(next.emailId)).toBeDefined();
    });
  });
}
