import type { AddressInfo } from 'node:net';

import { dkimVerify } from 'mailauth';
import { type ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export type { ParsedMail } from 'mailparser';

/** A message accepted by the sink: the SMTP envelope and the raw RFC 5322 bytes. */
export interface SinkMessage {
  envelope: { from: string; to: string[] };
  raw: Buffer;
  /** When its DATA ended, `performance.now()` of the sink's process (ms). */
  receivedAt: number;
}

/** Options of {@link startSmtpSink}. */
export interface SmtpSinkOptions {
  /** Answer `451` (transient failure) to the first N DATA commands; default 0. */
  failFirst?: number;
  /**
   * Recipients refused at RCPT TO with `550 5.1.1` (a permanent failure, as a mailbox that does
   * not exist), compared without case.
   */
  rejectRecipients?: readonly string[];
}

/** A running SMTP sink (see {@link startSmtpSink}). */
export interface SmtpSink {
  /** `smtp://127.0.0.1:<port>`, usable as an SmtpMailer url. */
  url: string;
  port: number;
  /** Messages accepted so far (answered 250), in arrival order. */
  messages: SinkMessage[];
  /**
   * Resolves once at least `count` messages were accepted.
   * @throws Error after `timeoutMs` (ms) with the number received.
   */
  waitFor(count: number, timeoutMs: number): Promise<void>;
  close(): Promise<void>;
}

class TransientFailure extends Error {
  readonly responseCode = 451;
}

class PermanentFailure extends Error {
  readonly responseCode = 550;
}

/**
 * Starts a real SMTP server (`smtp-server`) on 127.0.0.1 with a random port that accepts every
 * message (no auth required, no STARTTLS, size limit 50 MB) and keeps it in memory, for tests of
 * delivery. With `failFirst`, the first N DATA commands get `451` so retries can be tested; with
 * `rejectRecipients`, those addresses get `550` at RCPT TO so hard bounces can be.
 */
export async function startSmtpSink(options: SmtpSinkOptions = {}): Promise<SmtpSink> {
  const messages: SinkMessage[] = [];
  const waiters = new Set<() => void>();
  let failuresLeft = options.failFirst ?? 0;
  const rejected = new Set(
    (options.rejectRecipients ?? []).map((address) => address.toLowerCase()),
  );

  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    size: 50 * 1024 * 1024,
    logger: false,
    onRcptTo(address, _session, callback) {
      if (rejected.has(address.address.toLowerCase())) {
        callback(new PermanentFailure('5.1.1 The email account does not exist'));
        return;
      }
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
      });
      stream.on('end', () => {
        if (failuresLeft > 0) {
          failuresLeft -= 1;
          callback(new TransientFailure('Temporary failure, try again later'));
          return;
        }
        const from = session.envelope.mailFrom;
        messages.push({
          envelope: {
            from: from === false ? '' : from.address,
            to: session.envelope.rcptTo.map((rcpt) => rcpt.address),
          },
          raw: Buffer.concat(chunks),
          receivedAt: performance.now(),
        });
        for (const waiter of waiters) waiter();
        callback(null, 'OK: queued');
      });
    },
  });

  // A client that dies mid-session (for example a process killed by a crash test) resets its
  // connection; that is the peer's failure, not the sink's.
  server.on('error', () => undefined);
  await new Promise<void>((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      resolve();
    });
  });
  const port = (server.server.address() as AddressInfo).port;

  return {
    url: `smtp://127.0.0.1:${port}`,
    port,
    messages,
    waitFor(count, timeoutMs) {
      if (messages.length >= count) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        const check = (): void => {
          if (messages.length < count) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve();
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(
            new Error(`SMTP sink: ${messages.length} of ${count} messages after ${timeoutMs} ms`),
          );
        }, timeoutMs);
        waiters.add(check);
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const waiter of waiters) waiters.delete(waiter);
        server.close(() => {
          resolve();
        });
      }),
  };
}

/** Parses a raw RFC 5322 message with mailparser's `simpleParser` (for assertions in tests). */
export function parseMessage(raw: Buffer | string): Promise<ParsedMail> {
  return simpleParser(raw);
}

/** Outcome of one DKIM signature of a message. */
export interface DkimCheck {
  result: string;
  signingDomain: string | undefined;
  selector: string | undefined;
}

/**
 * Verifies the DKIM signatures of `raw` with mailauth, answering TXT look-ups from `txt`
 * (name → record text, for example `sel._domainkey.example.com` → `v=DKIM1; k=rsa; p=…`);
 * other names answer ENOTFOUND. Returns one entry per signature.
 */
export async function verifyDkim(
  raw: Buffer | string,
  txt: Record<string, string>,
): Promise<DkimCheck[]> {
  const records = new Map(
    Object.entries(txt).map(([name, value]) => [name.toLowerCase().replace(/\.$/, ''), value]),
  );
  const outcome = await dkimVerify(raw, {
    resolver: (name: string, type: string) => {
      const value = records.get(name.toLowerCase().replace(/\.$/, ''));
      if (type !== 'TXT' || value === undefined) {
        const error = new Error(`no ${type} record for ${name}`) as Error & { code: string };
        error.code = 'ENOTFOUND';
        return Promise.reject(error);
      }
      const parts: string[] = [];
      for (let index = 0; index < value.length; index += 255)
        parts.push(value.slice(index, index + 255));
      return Promise.resolve([parts]);
    },
  });
  return outcome.results.map((signature) => ({
    result: signature.status.result,
    signingDomain: signature.signingDomain,
    selector: signature.selector,
  }));
}
