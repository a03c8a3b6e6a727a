/**
 * Delivery of account mail (API reference, "Configuration": `STAMP_SYSTEM_FROM`): the accounts
 * service asks for an email (AccountEmailRequested on `accountEmail-<id>`, its body sealed); this
 * consumer (group `sending-account-mail`) sends it from the system sender through the SMTP relay,
 * or to the local outbox without one, and records the outcome on `accountEmailDelivery-<id>`:
 * AccountEmailDelivered inside the mailer's commit point, or AccountEmailFailed. A request with
 * an outcome is not sent again; a failed one is not retried (the user may ask again). Account
 * mail belongs to no project: no DKIM of a project's domain, no tracking, no suppression list.
 */
import {
  ACCOUNT_EMAIL_CATEGORY,
  ACCOUNT_EMAIL_DELIVERY_CATEGORY,
  ACCOUNT_EMAIL_SEAL,
  type AccountEmailRequestedData,
  entityIdOf,
} from '@stamp/contracts';
import {
  type EventStore,
  type Logger,
  type Mailbox,
  type Mailer,
  type RecordedEvent,
  type Secrets,
  streamCategory,
  WrongExpectedRevisionError,
} from '@stamp/platform';

/** Consumer group of account mail delivery. */
export const ACCOUNT_MAIL_GROUP = 'sending-account-mail';

/** Dependencies of {@link deliverAccountEmail}. */
export interface AccountMailDeps {
  store: EventStore;
  secrets: Secrets;
  logger: Logger;
  /** The SMTP relay, when configured. */
  relay?: Mailer;
  outbox: Mailer;
  /** STAMP_SYSTEM_FROM, parsed. */
  from: Mailbox;
}

/** `Name <address>` or a bare address, as a mailbox. */
export function parseMailbox(text: string): Mailbox {
  const match = /^\s*(.*?)\s*<([^<>\s]+@[^<>\s]+)>\s*$/.exec(text);
  if (match === null) return { address: text.trim() };
  const name = (match[1] ?? '').replace(/^"(.*)"$/, '$1');
  return name === '' ? { address: match[2] ?? '' } : { name, address: match[2] ?? '' };
}

/** Handles one event of the `accountEmail` topic (see the module comment). Idempotent. */
export async function deliverAccountEmail(
  deps: AccountMailDeps,
  event: RecordedEvent,
): Promise<void> {
  if (streamCategory(event.streamId) !== ACCOUNT_EMAIL_CATEGORY) return;
  if (event.type !== 'AccountEmailRequested') return;
  const id = entityIdOf(event.streamId);
  const outcomeStream = `${ACCOUNT_EMAIL_DELIVERY_CATEGORY}-${id}`;
  if ((await deps.store.readStream(outcomeStream)).length > 0) return;
  const request = event.data as AccountEmailRequestedData;
  const metadata = { correlationId: event.metadata.correlationId, causationId: event.id };
  const record = async (type: string, data: Record<string, unknown>): Promise<void> => {
    try {
      await deps.store.append([
        {
          streamId: outcomeStream,
          expectedRevision: 'no_stream',
          events: [{ type, data, metadata }],
        },
      ]);
    } catch (error) {
      // Recorded before (a redelivered request): nothing more to do.
      if (!(error instanceof WrongExpectedRevisionError)) throw error;
    }
  };
  const transport = deps.relay === undefined ? 'outbox' : 'smtp';
  const mailer = deps.relay ?? deps.outbox;
  try {
    const html = deps.secrets.open(ACCOUNT_EMAIL_SEAL, request.html);
    await mailer.send(
      {
        emailId: id,
        projectId: '',
        from: deps.from,
        to: { address: request.to },
        subject: request.subject,
        html,
      },
      async (receipt) => {
        await record('AccountEmailDelivered', {
          messageId: receipt.messageId,
          response: receipt.response,
          transport,
          sentAt: new Date().toISOString(),
        });
      },
    );
  } catch (error) {
    if ((await deps.store.readStream(outcomeStream)).length > 0) throw error;
    const message = error instanceof Error ? error.message : String(error);
    deps.logger.warn(
      { accountEmailId: id, kind: request.kind, error: message },
      'account email failed',
    );
    await record('AccountEmailFailed', { error: message, failedAt: new Date().toISOString() });
  }
}
