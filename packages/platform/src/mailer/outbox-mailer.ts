import nodemailer from 'nodemailer';

import type { ViewStore } from '../views/view-store.ts';
import { toNodemailer } from './compose.ts';
import type { Commit, DeliveryReceipt, Mailer, OutgoingMessage } from './mailer.ts';

/** Name of the view collection that holds captured messages. */
export const OUTBOX_COLLECTION = 'outbox';

/** A message captured by the local outbox. */
export interface OutboxDocument {
  /** The email id. */
  _id: string;
  projectId: string;
  from: string;
  to: string;
  subject: string;
  /** The whole RFC 5322 message, DKIM-signed when a key was given. */
  raw: string;
  /** ISO 8601 capture time. */
  capturedAt: string;
  [field: string]: unknown;
}

/**
 * The local capture outbox: builds the exact MIME message (same composer and DKIM signing as
 * SMTP) and stores it in the `outbox` view instead of sending it, keeping the latest
 * `maxMessages`. Used when no relay is set, and always for the sandbox sender.
 */
export class OutboxMailer implements Mailer {
  private readonly views: ViewStore;
  private readonly maxMessages: number;
  private captures = 0;
  private readonly composer = nodemailer.createTransport({ streamTransport: true, buffer: true });

  /** @param maxMessages captured messages kept (default 1,000); the oldest go first. */
  constructor(views: ViewStore, maxMessages = 1000) {
    this.views = views;
    this.maxMessages = maxMessages;
  }

  /** Removes the oldest captured messages beyond `maxMessages`. */
  private async prune(): Promise<void> {
    const outbox = this.views.collection<OutboxDocument>(OUTBOX_COLLECTION);
    const excess = (await outbox.countDocuments({})) - this.maxMessages;
    if (excess <= 0) return;
    const oldest = await outbox.find({}, { sort: { capturedAt: 1, _id: 1 }, limit: excess });
    for (const message of oldest) await outbox.deleteOne({ _id: message._id });
  }

  async send(message: OutgoingMessage, commit?: Commit): Promise<DeliveryReceipt> {
    const info = await this.composer.sendMail(toNodemailer(message));
    const raw = Buffer.isBuffer(info.message) ? info.message.toString('utf8') : '';
    await this.views.collection<OutboxDocument>(OUTBOX_COLLECTION).replaceOne(
      { _id: message.emailId },
      {
        _id: message.emailId,
        projectId: message.projectId,
        from: message.from.address,
        to: message.to.address,
        subject: message.subject,
        raw,
        capturedAt: new Date().toISOString(),
      },
      { upsert: true },
    );
    this.captures += 1;
    if (this.captures % 50 === 0) await this.prune();
    // The capture must be durable before the delivery is recorded.
    await this.views.flush();
    const receipt = { messageId: info.messageId, response: '250 captured in the local outbox' };
    await commit?.(receipt);
    return receipt;
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
