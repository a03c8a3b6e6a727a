import { join } from 'node:path';
import { Worker } from 'node:worker_threads';

import { type MessageComposer, sharedComposer } from './composer.ts';
import { PortBatch } from './port-batch.ts';
import {
  type Commit,
  type DeliveryReceipt,
  DeliveryError,
  envelopeOf,
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
  /** Where messages are composed and signed (default: the process's composer threads). */
  composer?: MessageComposer;
  /**
   * The delivery journal, a SQLite file (for example `<STAMP_DATA_DIR>/delivery-journal.db`);
   * default `:memory:`, which a crash loses (tests).
   */
  journal?: string;
  /** `synchronous` of the journal, as the platform's database (default NORMAL). */
  durability?: 'NORMAL' | 'FULL';
}

/** Options of the SMTP thread (its `workerData`). */
export interface SmtpThreadOptions {
  url: string;
  maxConnections: number;
  rejectUnauthorized: boolean;
  journal: string;
  synchronous: 'NORMAL' | 'FULL';
}

/** A request to the SMTP thread. */
export type SmtpThreadRequest =
  | {
      kind: 'send';
      id: number;
      emailId: string;
      messageId: string;
      envelope: { from: string; to: string };
      raw: Uint8Array<ArrayBuffer>;
      /** Bulk mail: handed to the pool only when no other message waits. */
      bulk: boolean;
    }
  | { kind: 'recorded'; emailId: string }
  | { kind: 'close' };

/** The SMTP thread's answer to a send. */
export type SmtpThreadReply =
  | { id: number; receipt: DeliveryReceipt; replayed: boolean }
  | { id: number; error: { message: string; transient: boolean; responseCode?: number } };

interface Pending {
  resolve: (reply: SmtpThreadReply) => void;
  reject: (error: Error) => void;
}

type SendRequest = Extract<SmtpThreadRequest, { kind: 'send' }>;

const THREAD_ENTRY = join(import.meta.dirname, 'smtp-thread.ts');

/** The delivery journal of a data folder (`:memory:` stays in memory). */
export function deliveryJournalOf(dataDir: string): string {
  return dataDir === ':memory:' ? ':memory:' : join(dataDir, 'delivery-journal.db');
}

/**
 * Delivers through an SMTP relay with a pool of connections (nodemailer `pool: true`) in a
 * thread of its own (`smtp-thread.ts`), so that neither the platform's event loop nor its work
 * ever delays an SMTP reply. Messages are composed and DKIM-signed first, in composer threads
 * ({@link MessageComposer}), then streamed to the relay.
 *
 * The thread hands the pool two messages per connection at a time, bulk mail only when no other
 * message waits. Every part of the SMTP transaction runs in parallel across the pool except its
 * commit point:
 * the last byte of a message (after which the server's 250 means "accepted") is released to one
 * connection at a time, and the next one only once the acceptance is in the delivery journal (a
 * SQLite file of the thread). A crash can therefore leave at most one accepted message the
 * journal does not know, which is sent again on restart (architecture brief, "Delivery"). An
 * email id the journal knows is never sent again: a later send of it answers the journaled
 * receipt, so a delivery whose record (`commit`) did not happen is recorded on its retry. Once
 * `commit` has recorded it, the journal forgets it.
 */
export class SmtpMailer implements Mailer {
  private readonly options: SmtpThreadOptions;
  private readonly composer: MessageComposer;
  private thread: Worker | undefined;
  /** Requests to the thread, posted together once per turn of the event loop. */
  private requests: PortBatch<SmtpThreadRequest> | undefined;
  private readonly pending = new Map<number, Pending>();
  private nextId = 0;

  constructor(options: SmtpMailerOptions) {
    this.composer = options.composer ?? sharedComposer();
    this.options = {
      url: options.url,
      maxConnections: options.maxConnections ?? 5,
      rejectUnauthorized: options.rejectUnauthorized ?? true,
      journal: options.journal ?? ':memory:',
      synchronous: options.durability ?? 'NORMAL',
    };
  }

  /** The SMTP thread, started on first use; it keeps the process alive only while it sends. */
  private started(): { thread: Worker; requests: PortBatch<SmtpThreadRequest> } {
    if (this.thread !== undefined && this.requests !== undefined) {
      return { thread: this.thread, requests: this.requests };
    }
    const thread = new Worker(THREAD_ENTRY, { workerData: this.options });
    const requests = new PortBatch<SmtpThreadRequest>((items, transfer) => {
      thread.postMessage(items, transfer);
    });
    thread.on('message', (replies: SmtpThreadReply[]) => {
      for (const reply of replies) {
        const pending = this.pending.get(reply.id);
        if (pending === undefined) continue;
        this.pending.delete(reply.id);
        pending.resolve(reply);
      }
      if (this.pending.size === 0) thread.unref();
    });
    const fail = (error: Error): void => {
      if (this.thread === thread) {
        this.thread = undefined;
        this.requests = undefined;
      }
      for (const pending of this.pending.values()) pending.reject(error);
      this.pending.clear();
    };
    thread.on('error', fail);
    thread.on('exit', (code) => {
      fail(new Error(`the SMTP thread ended (exit code ${code})`));
    });
    thread.unref();
    this.thread = thread;
    this.requests = requests;
    return { thread, requests };
  }

  private request(request: Omit<SendRequest, 'id'>): Promise<SmtpThreadReply> {
    const { thread, requests } = this.started();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      if (this.pending.size === 0) thread.ref();
      this.pending.set(id, { resolve, reject });
      requests.add({ ...request, id }, request.raw.buffer);
    });
  }

  async send(message: OutgoingMessage, commit?: Commit): Promise<DeliveryReceipt> {
    const composed = await this.composer.compose(message);
    // Handed over to the thread, not copied: the composer's buffer is the message's alone.
    const { buffer, byteOffset, byteLength } = composed.raw;
    const raw =
      buffer instanceof ArrayBuffer && byteOffset === 0 && byteLength === buffer.byteLength
        ? new Uint8Array(buffer)
        : new Uint8Array(composed.raw);
    let reply: SmtpThreadReply;
    try {
      reply = await this.request({
        kind: 'send',
        emailId: message.emailId,
        messageId: composed.messageId,
        envelope: envelopeOf(message),
        raw,
        bulk: message.bulk === true,
      });
    } catch (error) {
      throw new DeliveryError(error instanceof Error ? error.message : String(error), true);
    }
    if ('error' in reply) {
      throw new DeliveryError(reply.error.message, reply.error.transient, reply.error.responseCode);
    }
    await commit?.(reply.receipt);
    this.forget(message.emailId);
    return reply.receipt;
  }

  /** Tells the thread that the acceptance of `emailId` is recorded: its journal forgets it. */
  private forget(emailId: string): void {
    this.requests?.add({ kind: 'recorded', emailId });
  }

  async close(): Promise<void> {
    const thread = this.thread;
    const requests = this.requests;
    if (thread === undefined || requests === undefined) return;
    this.thread = undefined;
    this.requests = undefined;
    const ended = new Promise<void>((resolve) => {
      thread.once('exit', () => {
        resolve();
      });
    });
    // Kept alive until it has ended: an unreferenced thread's exit would not be waited for.
    thread.ref();
    requests.add({ kind: 'close' });
    requests.flush();
    await ended;
  }
}
