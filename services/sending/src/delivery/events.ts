import type {
  EmailBouncedEventData,
  EmailClickedEventData,
  EmailComplainedEventData,
  EmailOpenedEventData,
  EmailSuppressedEventData,
} from '@stamp/contracts';
import type { MailAttachment } from '@stamp/platform';

/** A mailbox in email events. */
export interface EventMailbox {
  name?: string;
  email: string;
}

/** Data of EmailQueued (stream `email-<id>`): everything delivery needs. */
export interface EmailQueuedData {
  emailId: string;
  contactId: string;
  to: EventMailbox;
  from: EventMailbox;
  replyTo?: string;
  subject: string;
  html: string;
  headers: Record<string, string>;
  attachments: MailAttachment[];
  templateId?: string;
  /** Campaign the email belongs to. */
  campaignId?: string;
  /** Workflow and execution whose SEND_EMAIL step sent the email. */
  workflowId?: string;
  executionId?: string;
  /**
   * A campaign email or a MARKETING template's, which tracking mode MARKETING_ONLY tracks;
   * absent on emails queued before it was recorded (then: whether it has a `campaignId`).
   */
  marketing?: boolean;
  /** Sandbox sender: only ever delivered to the local outbox. */
  sandbox: boolean;
}

/** The email events. */
export type EmailEvent =
  | { type: 'EmailQueued'; data: EmailQueuedData }
  | {
      type: 'EmailSent';
      data: { messageId: string; response: string; transport: 'smtp' | 'outbox'; sentAt: string };
    }
  | { type: 'EmailDeferred'; data: { attempt: number; error: string; retryAt: string } }
  | { type: 'EmailRetryDue'; data: { attempt: number } }
  | { type: 'EmailFailed'; data: { error: string; failedAt: string } }
  | { type: 'EmailSuppressed'; data: EmailSuppressedEventData }
  | { type: 'EmailBounced'; data: EmailBouncedEventData }
  | { type: 'EmailComplained'; data: EmailComplainedEventData }
  | { type: 'EmailOpened'; data: EmailOpenedEventData }
  | { type: 'EmailClicked'; data: EmailClickedEventData };

/** Delivery state of one email stream. */
export interface EmailState {
  queued: EmailQueuedData | null;
  /** Deferred attempts so far. */
  attempts: number;
  done: boolean;
}

/** Stream id of an email. */
export const emailStream = (id: string): string => `email-${id}`;

/** Folds one event into the delivery state. */
export function evolveEmail(state: EmailState, event: EmailEvent): EmailState {
  switch (event.type) {
    case 'EmailQueued':
      return { ...state, queued: event.data };
    case 'EmailDeferred':
      return { ...state, attempts: event.data.attempt };
    case 'EmailSent':
    case 'EmailFailed':
    case 'EmailSuppressed':
    case 'EmailBounced':
      return { ...state, done: true };
    case 'EmailRetryDue':
    case 'EmailOpened':
    case 'EmailClicked':
    case 'EmailComplained':
      return state;
  }
}

/** The initial state. */
export const initialEmailState = (): EmailState => ({ queued: null, attempts: 0, done: false });

/**
 * Decides the outcome of a failed delivery attempt (issue "Bounces and complaints"): a permanent
 * SMTP reply (5xx) is a hard bounce (EmailBounced); a transient one (4xx, a soft bounce) or a
 * connection failure is retried with exponential backoff (`baseMs * 2^(attempt-1)` ms, as
 * EmailDeferred) until `maxAttempts` attempts failed, after which a soft bounce becomes a hard
 * bounce and a connection failure EmailFailed. Every other permanent failure is EmailFailed. Pure.
 */
export function decideFailure(
  state: EmailState,
  failure: { message: string; transient: boolean; responseCode?: number | undefined },
  policy: { baseMs: number; maxAttempts: number },
  now: Date,
): EmailEvent {
  const attempt = state.attempts + 1;
  const code = failure.responseCode;
  const permanent = !failure.transient || attempt >= policy.maxAttempts;
  if (permanent && code !== undefined && code >= 400 && code < 600 && state.queued !== null) {
    return {
      type: 'EmailBounced',
      data: {
        bounceType: 'hard',
        source: 'smtp',
        recipient: state.queued.to.email,
        responseCode: code,
        diagnostic: failure.message,
        bouncedAt: now.toISOString(),
      },
    };
  }
  if (permanent) {
    return { type: 'EmailFailed', data: { error: failure.message, failedAt: now.toISOString() } };
  }
  const retryAt = new Date(now.getTime() + policy.baseMs * 2 ** (attempt - 1)).toISOString();
  return { type: 'EmailDeferred', data: { attempt, error: failure.message, retryAt } };
}
