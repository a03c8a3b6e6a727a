/**
 * The inbound SMTP listener (issue "Bounces and complaints"; configuration
 * `STAMP_INBOUND_SMTP_PORT`, `STAMP_INBOUND_SMTP_HOST`): an `smtp-server` that accepts mail only
 * for the VERP return paths of Stamp's emails (any other recipient: 550 5.1.1), at most
 * `maxBytes` per message (552 beyond), reads each as a DSN or an ARF report and records what it
 * means on the email it names (EmailBounced, EmailComplained). A report that cannot be recorded
 * now is refused with 451, so its sender tries again.
 */
import type { AddressInfo, Socket } from 'node:net';

import type { EventStore, Logger, Secrets, ViewStore } from '@stamp/platform';
import { SMTPServer } from 'smtp-server';

import { recordReport } from './record.ts';
import { readReport } from './reports.ts';
import { readVerpAddress } from './verp.ts';

/** Dependencies of {@link startInboundListener}. */
export interface InboundListenerDeps {
  store: EventStore;
  views: ViewStore;
  secrets: Secrets;
  logger: Logger;
  /** Listen address and port (0: any free port, for tests). */
  host: string;
  port: number;
  /** Largest accepted message, bytes (default 10 MiB). */
  maxBytes?: number;
  /** The clock (tests). */
  now?: () => Date;
}

/** A running listener. */
export interface InboundListener {
  /** The port it listens on. */
  port: number;
  close(): Promise<void>;
}

/** Default size cap of one report, bytes. */
export const DEFAULT_INBOUND_MAX_BYTES = 10 * 1024 * 1024;

/** An error answered with its SMTP reply code (smtp-server reads `responseCode`). */
class SmtpReply extends Error {
  readonly responseCode: number;
  constructor(message: string, responseCode: number) {
    super(message);
    this.responseCode = responseCode;
  }
}

/**
 * Starts the listener (see the module comment).
 * @throws Error when the address cannot be bound (a port in use, for example).
 */
export async function startInboundListener(deps: InboundListenerDeps): Promise<InboundListener> {
  const maxBytes = deps.maxBytes ?? DEFAULT_INBOUND_MAX_BYTES;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    size: maxBytes,
    logger: false,
    banner: 'Stamp feedback',
    onRcptTo(address, _session, callback) {
      if (readVerpAddress(deps.secrets, address.address) === null) {
        callback(new SmtpReply('5.1.1 No such recipient here', 550));
        return;
      }
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        if (stream.sizeExceeded) {
          callback(new SmtpReply('5.3.4 Message too big', 552));
          return;
        }
        const raw = Buffer.concat(chunks);
        void (async () => {
          const report = await readReport(raw);
          for (const recipient of session.envelope.rcptTo) {
            const emailId = readVerpAddress(deps.secrets, recipient.address);
            if (emailId !== null) await recordReport(deps, emailId, report, 'dsn', session.id);
          }
        })().then(
          () => {
            callback(null, 'OK: report received');
          },
          (error: unknown) => {
            deps.logger.error({ err: error }, 'could not record an inbound report');
            callback(new SmtpReply('4.3.0 Try again later', 451));
          },
        );
      });
    },
  });
  // Replies go out at once: with Nagle's algorithm a pipelining client waits for delayed ACKs.
  server.server.on('connection', (socket: Socket) => {
    socket.setNoDelay(true);
  });
  // A client that drops its connection mid-session is its own failure.
  server.on('error', (error) => {
    deps.logger.warn({ err: error }, 'inbound SMTP session failed');
  });
  await new Promise<void>((resolve, reject) => {
    const onError = (error: Error) => {
      reject(error);
    };
    server.server.once('error', onError);
    server.listen(deps.port, deps.host, () => {
      server.server.off('error', onError);
      resolve();
    });
  });
  const port = (server.server.address() as AddressInfo).port;
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
      }),
  };
}
