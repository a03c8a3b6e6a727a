import { createPrivateKey, type KeyObject } from 'node:crypto';

import type { SendMailOptions } from 'nodemailer';

import { BoundedCache } from '../bounded-cache.ts';
import type { DkimKey, OutgoingMessage } from './mailer.ts';

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
    envelope: { from: message.envelopeFrom ?? message.from.address, to: message.to.address },
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
