/**
 * The inbound SMTP listener (issues "Bounces and complaints", "Inbound mail"; configuration
 * `STAMP_INBOUND_SMTP_PORT`, `STAMP_INBOUND_SMTP_HOST`): an `smtp-server` that accepts mail only
 * for the VERP return paths of Stamp's emails and for the verified domains of projects (every other
 * recipient: 550 5.1.1), at most `maxBytes` per message (552 beyond). A message to a return path
 * is read as a DSN or an ARF report and recorded on the email it names (EmailBounced,
 * EmailComplained); a message to a project's domain is recorded as EmailReceived on its
 * sender's contact. A message that cannot be recorded now is refused with 451, so its sender
 * tries again. Mail for a project whose `inbound` billing cap is reached is refused with
 * `452 4.2.2` (at RCPT TO, or for the whole message when the cap is reached meanwhile), so its
 * sender tries again later, when the cap may have been raised or a new month begun.
 */
import type { AddressInfo, Socket } from 'node:net';

import type { ContactsApi } from '@stamp/contracts';
import { ApiError } from '@stamp/http-kit';
import type { EventStore, Logger, Secrets, ViewStore } from '@stamp/platform';
import { SMTPServer } from 'smtp-server';

import type { BillingGuard, Reservation } from '../billing/guard.ts';

import { recordReceived } from './received.ts';
import { recordReport } from './record.ts';
import { type FeedbackReport, readReport } from './reports.ts';
import { readVerpAddress } from './verp.ts';

/** Dependencies of {@link startInboundListener}. */
export interface InboundListenerDeps {
  store: EventStore;
  views: ViewStore;
  secrets: Secrets;
  logger: Logger;
  contacts: ContactsApi;
  /** The check of the projects' `inbound` billing caps. */
  billing: BillingGuard;
  /** The project whose verified domain `domain` is, or null (DomainsApi.receivingDomain). */
  receivingDomain(domain: string): Promise<{ projectId: string } | null>;
  /** Listen address and port (0: a free port, for tests). */
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

/** Default size cap of one message, bytes. */
export const DEFAULT_INBOUND_MAX_BYTES = 10 * 1024 * 1024;

/** An error answered with its SMTP reply code (smtp-server reads `responseCode`). */
class SmtpReply extends Error {
  readonly responseCode: number;
  constructor(message: string, responseCode: number) {
    super(message);
    this.responseCode = responseCode;
  }
}

/** The refusal of mail over a project's `inbound` cap (RFC 3463 X.2.2: mailbox full). */
const overCap = (): SmtpReply =>
  new SmtpReply('4.2.2 The mailbox has received its monthly quota; try again later', 452);

/**
 * Starts the listener (see the module comment).
 * @throws Error when the address cannot be bound (a port in use, for example).
 */
export async function startInboundListener(deps: InboundListenerDeps): Promise<InboundListener> {
  const maxBytes = deps.maxBytes ?? DEFAULT_INBOUND_MAX_BYTES;
  /** The project receiving mail for `address`'s domain, or null. */
  const projectOf = async (address: string): Promise<string | null> => {
    const at = address.lastIndexOf('@');
    if (at <= 0) return null;
    return (await deps.receivingDomain(address.slice(at + 1)))?.projectId ?? null;
  };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    size: maxBytes,
    logger: false,
    banner: 'Stamp',
    onRcptTo(address, _session, callback) {
      if (readVerpAddress(deps.secrets, address.address) !== null) {
        callback();
        return;
      }
      projectOf(address.address)
        .then(async (projectId) => {
          if (projectId === null) return new SmtpReply('5.1.1 No such recipient here', 550);
          if (!(await deps.billing.allows(projectId, 'inbound'))) return overCap();
          return null;
        })
        .then(
          (refusal) => {
            callback(refusal);
          },
          (error: unknown) => {
            deps.logger.error({ err: error }, 'could not look a receiving domain up');
            callback(new SmtpReply('4.3.0 Try again later', 451));
          },
        );
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
          const received = new Map<string, string[]>();
          // Read once, whatever the number of return paths the message was sent to.
          let report: Promise<FeedbackReport> | undefined;
          for (const recipient of session.envelope.rcptTo) {
            const emailId = readVerpAddress(deps.secrets, recipient.address);
            if (emailId !== null) {
              report ??= readReport(raw);
              await recordReport(deps, emailId, await report, 'dsn', session.id);
              continue;
            }
            const projectId = await projectOf(recipient.address);
            if (projectId !== null) {
              received.set(projectId, [...(received.get(projectId) ?? []), recipient.address]);
            }
          }
          const from = session.envelope.mailFrom;
          // Every project's cap is checked before the message is recorded for one of them.
          const reservations = new Map<string, Reservation>();
          try {
            for (const projectId of received.keys()) {
              reservations.set(projectId, await deps.billing.reserve(projectId, 'inbound', 1));
            }
          } catch (error) {
            for (const reservation of reservations.values()) reservation.release();
            throw error;
          }
          for (const [projectId, to] of received) {
            const reservation = reservations.get(projectId);
            try {
              const recorded = await recordReceived(
                deps,
                { projectId, to, envelopeFrom: from === false ? null : from.address, raw },
                session.id,
              );
              reservation?.settle(recorded?.position ?? 0, recorded === null ? 0 : 1);
            } catch (error) {
              reservation?.release();
              throw error;
            }
          }
        })().then(
          () => {
            callback(null, 'OK: received');
          },
          (error: unknown) => {
            if (error instanceof ApiError && error.code === 'BILLING_LIMIT_EXCEEDED') {
              callback(overCap());
              return;
            }
            deps.logger.error({ err: error }, 'could not record an inbound message');
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
