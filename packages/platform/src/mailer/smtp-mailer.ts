import { connect, type Socket } from 'node:net';
import { Readable } from 'node:stream';

import nodemailer from 'nodemailer';
import type SMTPPool from 'nodemailer/lib/smtp-pool/index.js';

import { toNodemailer } from './compose.ts';
import {
  type Commit,
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
  responseCode?: number;
  message?: string;
}

/**
 * Delivers through an SMTP relay with a pool of connections (nodemailer `pool: true`).
 *
 * Messages are composed and DKIM-signed first, then streamed to the relay. Every part of the SMTP
 * transaction runs in parallel across the pool except its commit point: the last byte of the
 * message (after which the server's 250 means "accepted") is released to one connection at a
 * time, and the next one only after the caller's `commit` has recorded the acceptance. A crash
 * can therefore leave at most one accepted-but-unrecorded message, which is sent again on
 * restart (architecture brief, "Delivery").
 */
export class SmtpMailer implements Mailer {
  private readonly transport: nodemailer.Transporter<SMTPPool.SentMessageInfo>;
  private readonly composer = nodemailer.createTransport({ streamTransport: true, buffer: true });
  private commitPoint: Promise<void> = Promise.resolve();

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
      // Plain connections disable Nagle's algorithm: the end of DATA is a small write right after
      // the message, and would otherwise wait for the server's delayed ACK (about 40 ms).
      ...(url.protocol === 'smtps:'
        ? {}
        : {
            getSocket: (
              socketOptions: { host?: string; port?: number },
              callback: (error: Error | null, result?: { connection: Socket }) => void,
            ) => {
              const socket = connect({
                host: socketOptions.host ?? '127.0.0.1',
                port: socketOptions.port ?? 25,
                noDelay: true,
              });
              socket.once('error', (error) => {
                callback(error);
              });
              socket.once('connect', () => {
                socket.removeAllListeners('error');
                callback(null, { connection: socket });
              });
            },
          }),
    });
  }

  /** Waits for the commit point; resolves with the function that releases it. */
  private async enterCommitPoint(): Promise<() => void> {
    let release = (): void => undefined;
    const previous = this.commitPoint;
    this.commitPoint = new Promise((resolve) => {
      release = resolve;
    });
    await previous;
    return release;
  }

  async send(message: OutgoingMessage, commit?: Commit): Promise<DeliveryReceipt> {
    const options = toNodemailer(message);
    const composed = await this.composer.sendMail(options);
    const raw = Buffer.isBuffer(composed.message) ? composed.message : Buffer.alloc(0);
    let entering: Promise<() => void> | undefined;
    const source = new Readable({
      read: () => {
        if (entering !== undefined) return;
        entering = this.enterCommitPoint();
        void entering.then(() => {
          source.push(raw.subarray(raw.length - 1));
          source.push(null);
        });
      },
    });
    source.push(raw.subarray(0, raw.length - 1));
    try {
      let receipt: DeliveryReceipt;
      try {
        const info = await this.transport.sendMail({ envelope: options.envelope, raw: source });
        receipt = { messageId: composed.messageId, response: info.response };
      } catch (error) {
        const failure = error as SmtpFailure;
        const code = failure.responseCode;
        const transient = code === undefined || (code >= 400 && code < 500);
        throw new DeliveryError(failure.message ?? 'SMTP delivery failed', transient, code);
      }
      await commit?.(receipt);
      return receipt;
    } finally {
      if (entering !== undefined) (await entering)();
    }
  }

  close(): Promise<void> {
    this.transport.close();
    return Promise.resolve();
  }
}
