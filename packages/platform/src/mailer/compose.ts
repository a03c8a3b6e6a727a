import { createPrivateKey, type KeyObject } from 'node:crypto';

import nodemailer, { type SendMailOptions } from 'nodemailer';

import { BoundedCache } from '../bounded-cache.ts';
import { type DkimKey, envelopeOf, type OutgoingMessage } from './mailer.ts';

const signingKeys = new BoundedCache<string, KeyObject>(256);

/**
 * The parsed form of a PEM private key, kept per PEM. nodemailer hands the key it is given to
 * `crypto.Sign#sign`, which also takes a KeyObject; a PEM string would be parsed again for every
 * signature (about half the cost of signing with a 2048-bit RSA key).
 * @throws Error when the PEM is not a private key.
 */
function signingKey(pem: string): KeyObject {
  let key = signingKeys.get(pem);
  if (key === undefined) {
    key = createPrivateKey(pem);
    signingKeys.set(pem, key);
  }
  return key;
}

/** nodemailer's DKIM options for `dkim`, with the key parsed once (see {@link signingKey}). */
function dkimOptions(dkim: DkimKey): SendMailOptions['dkim'] {
  // nodemailer's types name only PEM strings; its signer passes the key to crypto unchanged.
  return { ...dkim, privateKey: signingKey(dkim.privateKey) as unknown as string };
}

/** Maps an {@link OutgoingMessage} to nodemailer's message options (one place for both transports). */
export function toNodemailer(message: OutgoingMessage): SendMailOptions {
  const fromDomain = message.from.address.split('@')[1] ?? 'localhost';
  return {
    messageId: `<${message.emailId}@${fromDomain}>`,
    from: { name: message.from.name ?? '', address: message.from.address },
    to: { name: message.to.name ?? '', address: message.to.address },
    envelope: envelopeOf(message),
    replyTo: message.replyTo,
    subject: message.subject,
    html: message.html,
    headers: { ...message.headers, 'X-Stamp-Email-Id': message.emailId },
    attachments: message.attachments?.map((attachment) => ({
      filename: attachment.filename,
      content: attachment.content,
      encoding: 'base64',
      contentType: attachment.contentType,
      cid: attachment.contentId,
      contentDisposition: attachment.disposition ?? 'attachment',
    })),
    dkim: message.dkim === undefined ? undefined : dkimOptions(message.dkim),
  };
}

const composer = nodemailer.createTransport({ streamTransport: true, buffer: true });

/**
 * The raw RFC 5322 message of `message` as nodemailer builds it (MIME, and a DKIM-Signature
 * header when `message.dkim` is set, RFC 6376), with its Message-ID. CPU-bound: about 1 ms with
 * a 2048-bit RSA key, most of it the signature. Delivery composes in a composer thread
 * (`composer.ts`), never on the event loop of the platform.
 * @throws Error when nodemailer cannot build it (an invalid address, say).
 */
export async function composeMessage(
  message: OutgoingMessage,
): Promise<{ raw: Buffer; messageId: string }> {
  const composed = await composer.sendMail(toNodemailer(message));
  const raw = Buffer.isBuffer(composed.message) ? composed.message : Buffer.alloc(0);
  return { raw, messageId: composed.messageId };
}
