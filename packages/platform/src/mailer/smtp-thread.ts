/**
 * Entry point of the SMTP thread of an {@link SmtpMailer} (`smtp-mailer.ts`): a nodemailer pool
 * to the relay and the delivery journal. See the mailer for the design.
 */
import { connect, type Socket } from 'node:net';
import { Readable } from 'node:stream';
import { parentPort, workerData } from 'node:worker_threads';

import nodemailer from 'nodemailer';
import type SMTPPool from 'nodemailer/lib/smtp-pool/index.js';

import { openDatabase } from '../sqlite/database.ts';
import { LaneQueue } from './lanes.ts';
import { PortBatch } from './port-batch.ts';
import type { SmtpThreadOptions, SmtpThreadReply, SmtpThreadRequest } from './smtp-mailer.ts';

type SendRequest = Extract<SmtpThreadRequest, { kind: 'send' }>;

/** Journal rows older than this are dropped at start (their email was recorded long ago), ms. */
const JOURNAL_KEPT_MS = 30 * 24 * 3600 * 1000;
/** Page cache of the journal's connection, MiB (its rows are few and small). */
const JOURNAL_CACHE_MB = 2;

interface SmtpFailure {
  responseCode?: number;
  message?: string;
}

const port = parentPort;
if (port === null) throw new Error('smtp-thread.ts runs as a worker thread');
const options = workerData as SmtpThreadOptions;
const url = new URL(options.url);

const journal = openDatabase(options.journal, {
  synchronous: options.synchronous,
  cacheMb: JOURNAL_CACHE_MB,
});
journal.exec(`CREATE TABLE IF NOT EXISTS accepted (
    email_id TEXT PRIMARY KEY, message_id TEXT NOT NULL, response TEXT NOT NULL,
    accepted_at INTEGER NOT NULL) WITHOUT ROWID;`);
journal.prepare('DELETE FROM accepted WHERE accepted_at < ?').run(Date.now() - JOURNAL_KEPT_MS);
const statements = {
  find: journal.prepare('SELECT message_id, response FROM accepted WHERE email_id = ?'),
  insert: journal.prepare(
    'INSERT OR REPLACE INTO accepted (email_id, message_id, response, accepted_at) VALUES (?, ?, ?, ?)',
  ),
  remove: journal.prepare('DELETE FROM accepted WHERE email_id = ?'),
  begin: journal.prepare('BEGIN'),
  commit: journal.prepare('COMMIT'),
};

const transport: nodemailer.Transporter<SMTPPool.SentMessageInfo> = nodemailer.createTransport({
  pool: true,
  host: url.hostname.replace(/^\[|\]$/g, ''),
  port: url.port === '' ? (url.protocol === 'smtps:' ? 465 : 587) : Number(url.port),
  secure: url.protocol === 'smtps:',
  auth:
    url.username === ''
      ? undefined
      : { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) },
  maxConnections: options.maxConnections,
  maxMessages: Infinity,
  tls: { rejectUnauthorized: options.rejectUnauthorized },
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

let commitPoint: Promise<void> = Promise.resolve();
/** Sends waiting for the pool; two per connection are in it at a time. */
const waiting = new LaneQueue<SendRequest>();
const window = 2 * options.maxConnections;
let sending = 0;

/** Hands waiting sends to the pool while it has room. */
function dispatch(): void {
  while (sending < window) {
    const next = waiting.shift();
    if (next === undefined) return;
    sending += 1;
    void send(next).finally(() => {
      sending -= 1;
      dispatch();
    });
  }
}

/** Waits for the commit point; resolves with the function that releases it. */
async function enterCommitPoint(): Promise<() => void> {
  let release = (): void => undefined;
  const previous = commitPoint;
  commitPoint = new Promise((resolve) => {
    release = resolve;
  });
  await previous;
  return release;
}

/**
 * Sends one raw message, or answers the receipt journaled for its email id when the relay
 * accepted it before (also before a crash): it is never sent again.
 */
async function send(request: SendRequest): Promise<void> {
  const known = statements.find.get(request.emailId) as
    { message_id: string; response: string } | undefined;
  if (known !== undefined) {
    reply({
      id: request.id,
      receipt: { messageId: known.message_id, response: known.response },
      replayed: true,
    });
    return;
  }
  const raw = Buffer.from(request.raw.buffer, request.raw.byteOffset, request.raw.byteLength);
  let entering: Promise<() => void> | undefined;
  const source = new Readable({
    read: () => {
      if (entering !== undefined) return;
      entering = enterCommitPoint();
      void entering.then(() => {
        source.push(raw.subarray(raw.length - 1));
        source.push(null);
      });
    },
  });
  source.push(raw.subarray(0, raw.length - 1));
  try {
    const info = await transport.sendMail({ envelope: request.envelope, raw: source });
    // Accepted: journaled before any other message may be accepted.
    statements.insert.run(request.emailId, request.messageId, info.response, Date.now());
    reply({
      id: request.id,
      receipt: { messageId: request.messageId, response: info.response },
      replayed: false,
    });
  } catch (error) {
    const failure = error as SmtpFailure;
    const code = failure.responseCode;
    const transient = code === undefined || (code >= 400 && code < 500);
    reply({
      id: request.id,
      error: {
        message: failure.message ?? 'SMTP delivery failed',
        transient,
        ...(code === undefined ? {} : { responseCode: code }),
      },
    });
  } finally {
    if (entering !== undefined) (await entering)();
  }
}

const replies = new PortBatch<SmtpThreadReply>((items) => {
  port.postMessage(items);
});

function reply(message: SmtpThreadReply): void {
  replies.add(message);
}

/** Forgets journaled acceptances whose delivery is recorded (one transaction). */
function forget(emailIds: readonly string[]): void {
  statements.begin.run();
  try {
    for (const emailId of emailIds) statements.remove.run(emailId);
  } finally {
    statements.commit.run();
  }
}

port.on('message', (requests: SmtpThreadRequest[]) => {
  const recorded: string[] = [];
  for (const request of requests) {
    switch (request.kind) {
      case 'send':
        waiting.push(request, request.bulk);
        break;
      case 'recorded':
        recorded.push(request.emailId);
        break;
      case 'close':
        if (recorded.length > 0) forget(recorded);
        replies.flush();
        transport.close();
        journal.exec('PRAGMA wal_checkpoint(TRUNCATE)');
        journal.close();
        port.close();
        return;
    }
  }
  if (recorded.length > 0) forget(recorded);
  dispatch();
});
