/** A mailbox: address with an optional display name. */
export interface Mailbox {
  name?: string;
  address: string;
}

/** An attachment; `content` is base64. `contentId` makes it usable inline (`cid:`). */
export interface MailAttachment {
  filename: string;
  content: string;
  contentType: string;
  contentId?: string;
  disposition?: 'attachment' | 'inline';
}

/** DKIM signing parameters (RFC 6376): signing domain (d=), selector (s=), PEM private key. */
export interface DkimKey {
  domainName: string;
  keySelector: string;
  privateKey: string;
}

/** A message ready for delivery to one recipient. */
export interface OutgoingMessage {
  /** Stamp's email id; it becomes the Message-ID's local part and the `X-Stamp-Email-Id` header. */
  emailId: string;
  /** Project the message is sent for (not written into the message). */
  projectId: string;
  from: Mailbox;
  to: Mailbox;
  /** Envelope sender (RFC 5321 MAIL FROM); defaults to the From address. */
  envelopeFrom?: string;
  replyTo?: string;
  subject: string;
  html: string;
  headers?: Record<string, string>;
  attachments?: MailAttachment[];
  dkim?: DkimKey;
  /**
   * Bulk mail (a campaign's): waits behind every other message for the mailer's threads and
   * connections, never the other way round.
   */
  bulk?: boolean;
}

/** The SMTP envelope of `message` (RFC 5321 MAIL FROM and RCPT TO). */
export function envelopeOf(message: OutgoingMessage): { from: string; to: string } {
  return { from: message.envelopeFrom ?? message.from.address, to: message.to.address };
}

/** What the receiving side said when it accepted a message. */
export interface DeliveryReceipt {
  messageId: string;
  /** The server's final reply, for example `250 2.0.0 OK`. */
  response: string;
}

/** Records an accepted delivery; see {@link Mailer.send}. */
export type Commit = (receipt: DeliveryReceipt) => Promise<void>;

/** The Mailer port: nodemailer transports (SMTP relay) and the local capture outbox. */
export interface Mailer {
  /**
   * Delivers one message, once per email id: `commit` runs once the receiving side has accepted
   * it (SMTP 250), to record the delivery. The mailer keeps its own durable note of the
   * acceptance before any other message can be accepted, so a crash between acceptance and note
   * can repeat at most one message; a later send of an email id accepted before (a record that
   * failed, or a crash before it) answers the same receipt and commits it without sending again.
   * @throws DeliveryError, `transient` for 4xx replies and connection failures; whatever `commit`
   *   throws.
   */
  send(message: OutgoingMessage, commit?: Commit): Promise<DeliveryReceipt>;
  close(): Promise<void>;
}

/** A failed delivery attempt. Transient failures are retried with backoff, permanent ones not. */
export class DeliveryError extends Error {
  readonly transient: boolean;
  /** SMTP reply code when the server answered (RFC 5321 §4.2). */
  readonly responseCode: number | undefined;
  constructor(message: string, transient: boolean, responseCode?: number) {
    super(message);
    this.name = 'DeliveryError';
    this.transient = transient;
    this.responseCode = responseCode;
  }
}
