import nodemailer from 'nodemailer';
import type SMTPPool from 'nodemailer/lib/smtp-pool/index.js';

import { toNodemailer } from './compose.ts';
import {
  type DeliveryReceipt,
  DeliveryError,
  type Mailer,
  type OutgoingMessage,
} from './mailer.ts';

/** Options of {@link SmtpMailer}. */
export interface SmtpMailerOptions {
  /** `smtp://user:pass@host:port` or `smtps://…`; TLS upgrade by STARTTLS when offered. */
  url: string;
  /** Pooled connections (default 5). */
  maxConnections?: number;
  /** Reject self-signed certificates (default true). */
  rejectUnauthorized?: boolean;
}

interface SmtpFailure {
  code?: string;
  responseCode?: number;
  message?: string;
}

/** Delivers through an SMTP relay with a pool of connections (nodemailer `pool: true`). */
export class SmtpMailer implements Mailer {
  private readonly transport: nodemailer.Transporter<SMTPPool.SentMessageInfo>;

  constructor(options: SmtpMailerOptions) {
    const url = new URL(options.url);
    this.transport = nodemailer.createTransport({
      pool: true,
      host: url.hostname.replace(/^\[|\]$/g, ''),
      port: url.port === '' ? (url.protocol === 'smtps:' ? 465 : 587) : Number(url.port),
      secure: url.protocol === 'smtps:',
      auth:
        url.username === ''
          ? undefined
          : { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) },
      maxConnections: options.maxConnections ?? 5,
      maxMessages: Infinity,
      tls: { rejectUnauthorized: options.rejectUnauthorized ?? true },
    });
  }

  async send(message: OutgoingMessage): Promise<DeliveryReceipt> {
    try {
      const info = await this.transport.sendMail(toNodemailer(message));
      return { messageId: info.messageId, response: info.response };
    } catch (error) {
      const failure = error as SmtpFailure;
      const code = failure.responseCode;
      const transient = code === undefined || (code >= 400 && code < 500);
      throw new DeliveryError(failure.message ?? 'SMTP delivery failed', transient, code);
    }
  }

  close(): Promise<void> {
    this.transport.close();
    return Promise.resolve();
  }
}
