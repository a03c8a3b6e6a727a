import type { SendMailOptions } from 'nodemailer';

import type { OutgoingMessage } from './mailer.ts';

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
    dkim: message.dkim,
  };
}
