/**
 * Integration events: the events one service appends and others consume from the bus
 * (architecture brief, "Contracts"). A topic is a stream category (the part of the stream id
 * before the first `-`); every event's `metadata.projectId` names its project and, for events
 * about a person, `metadata.subjectId` names the contact whose key seals the data (an erased
 * event is read back with `erased: true` and `data` `{}`).
 *
 * Only the owner appends these events; consumers rely on the stream categories, event type names
 * and data fields listed here and ignore any other field or type. Changes to these shapes are
 * additive; a breaking change takes a new `schemaVersion`.
 */
import type { ContactValue } from './index.ts';

/** Stream id of an entity: `<category>-<id>`. */
export const streamIdOf = (category: string, id: string): string => `${category}-${id}`;

/** The entity id of a stream id: the text after the first `-` (`contact-123` → `123`). */
export function entityIdOf(streamId: string): string {
  const dash = streamId.indexOf('-');
  return dash === -1 ? streamId : streamId.slice(dash + 1);
}

// ---------------------------------------------------------------------------------------------
// Contacts (owner: contacts service), stream `contact-<contactId>`.

/** Stream category of contacts: streams `contact-<contactId>`. */
export const CONTACT_STREAM_CATEGORY = 'contact';

/** Data of `ContactCreated`: the first email (normalised), subscription and custom data. */
export interface ContactCreatedEventData {
  email: string;
  subscribed: boolean;
  data: Record<string, ContactValue>;
}

/** Data of `ContactEmailChanged` (normalised addresses). */
export interface ContactEmailChangedEventData {
  from: string;
  to: string;
}

/** Data of `ContactDataChanged`: keys set and keys removed. */
export interface ContactDataChangedEventData {
  set: Record<string, ContactValue>;
  unset: string[];
}

/**
 * Data fields of every event of a contact stream, by event type. `ContactSubscribed` and
 * `ContactUnsubscribed` are the flips of spec part 3 (the spec's `contact.subscribed` and
 * `contact.unsubscribed`); `ContactDeleted` obliges every consumer to drop the contact's personal
 * data from its views (architecture brief, "Privacy").
 */
export interface ContactStreamEvents {
  ContactCreated: ContactCreatedEventData;
  ContactEmailChanged: ContactEmailChangedEventData;
  ContactDataChanged: ContactDataChangedEventData;
  ContactSubscribed: Record<string, never>;
  ContactUnsubscribed: Record<string, never>;
  ContactDeleted: Record<string, never>;
}

// ---------------------------------------------------------------------------------------------
// Tracked events (owner: contacts service), stream `trackedEvent-<eventId>`.

/**
 * Stream category of tracked events (spec part 4, POST /v1/track): one stream per tracked event,
 * `trackedEvent-<eventId>`, holding one `EventTracked` whose event id is the `event` id the API
 * returned.
 */
export const TRACKED_EVENT_STREAM_CATEGORY = 'trackedEvent';

/** Data of `EventTracked`: the event name, its contact (id and email) and its data as sent. */
export interface EventTrackedEventData {
  name: string;
  contactId: string;
  email: string;
  data: Record<string, ContactValue>;
}

/** Data fields of the events of a tracked-event stream, by event type. */
export interface TrackedEventStreamEvents {
  EventTracked: EventTrackedEventData;
}

// ---------------------------------------------------------------------------------------------
// Emails (owner: sending service), stream `email-<emailId>`.

/**
 * Stream category of emails: one stream per email, `email-<emailId>` (`emailId` is the id
 * POST /v1/send returned). Order within a stream: `EmailQueued` first, then any number of
 * `EmailDeferred` / `EmailRetryDue`, then at most one outcome, `EmailSent`, `EmailFailed`,
 * `EmailBounced` or `EmailSuppressed`; after `EmailSent`, opens and clicks (`EmailOpened`,
 * `EmailClicked`), at most one `EmailBounced` (a later DSN) and at most one `EmailComplained`.
 */
export const EMAIL_STREAM_CATEGORY = 'email';

/** A mailbox in email events. */
export interface EmailMailbox {
  name?: string;
  email: string;
}

/**
 * Data of `EmailQueued` (the email was accepted for delivery), the fields consumers read. The
 * event also carries the rendered message (html, headers, attachments), which only delivery uses.
 */
export interface EmailQueuedEventData {
  emailId: string;
  contactId: string;
  to: EmailMailbox;
  from: EmailMailbox;
  replyTo?: string;
  /** Rendered subject. */
  subject: string;
  templateId?: string;
  /** Campaign the email belongs to. */
  campaignId?: string;
  /** Workflow and execution whose SEND_EMAIL step sent the email. */
  workflowId?: string;
  executionId?: string;
  /** A campaign email or a MARKETING template's (tracked under MARKETING_ONLY). */
  marketing?: boolean;
  /** Sandbox sender: only ever delivered to the local outbox. */
  sandbox: boolean;
}

/** Data of `EmailSent`: the receiving side (SMTP relay or local outbox) accepted it. */
export interface EmailSentEventData {
  messageId: string;
  /** The server's reply, for example `250 OK: queued`. */
  response: string;
  transport: 'smtp' | 'outbox';
  /** ISO 8601 time of acceptance. */
  sentAt: string;
}

/** Data of `EmailDeferred`: a transient failure; another attempt is due at `retryAt`. */
export interface EmailDeferredEventData {
  attempt: number;
  error: string;
  /** ISO 8601 time of the next attempt. */
  retryAt: string;
}

/** Data of `EmailFailed`: a permanent rejection, or the retries were exhausted. */
export interface EmailFailedEventData {
  /** The last error (an SMTP reply may quote the recipient's address). */
  error: string;
  /** ISO 8601 time of the failure. */
  failedAt: string;
}

/**
 * Data of `EmailBounced`: the recipient's server refused the email for good (a hard bounce):
 * a permanent SMTP reply at delivery, or transient ones until the retries ran out (`source`
 * `smtp`), a delivery status notification with a 5.x.x status sent back to the email's VERP
 * return path (`source` `dsn`, RFC 3464), or an Amazon SES permanent bounce notification through
 * SNS (`source` `sns`). The address is suppressed and the contact unsubscribed.
 */
export interface EmailBouncedEventData {
  bounceType: 'hard';
  source: 'smtp' | 'dsn' | 'sns';
  /** The refused address. */
  recipient: string;
  /** The SMTP reply code (RFC 5321 §4.2), at delivery. */
  responseCode?: number;
  /** The enhanced status code of a DSN (RFC 3463), for example `5.1.1`. */
  status?: string;
  /** The server's reply (it may quote the address). */
  diagnostic: string;
  /** ISO 8601 time of the bounce. */
  bouncedAt: string;
}

/**
 * Data of `EmailComplained`: the recipient reported the email as unwanted, in an abuse report
 * (RFC 5965, ARF) sent back to its VERP return path or an Amazon SES complaint notification
 * through SNS. The address is suppressed and the contact unsubscribed.
 */
export interface EmailComplainedEventData {
  /** `Feedback-Type` of the report, for example `abuse`. */
  feedbackType: string;
  /** `User-Agent` of the report: the provider's software. */
  userAgent?: string;
  /** The address that complained. */
  recipient: string;
  /** ISO 8601 time the report arrived. */
  complainedAt: string;
}

/** Data of `EmailSuppressed`: the address is on the project's suppression list; not sent. */
export interface EmailSuppressedEventData {
  reason: 'HARD_BOUNCE' | 'COMPLAINT' | 'MANUAL';
  /** ISO 8601 time of the decision. */
  suppressedAt: string;
}

/**
 * Why an open or a click looks automated rather than a person's (API reference, "Open and
 * click tracking"): a bot or link scanner's user agent; Apple Mail Privacy Protection's proxy
 * (user agent exactly `Mozilla/5.0`), which fetches every image at delivery; a HEAD request; a
 * click within seconds of delivery; a click on another link of the same email moments after one.
 */
export type AutomatedReason =
  'bot-user-agent' | 'privacy-proxy' | 'head-request' | 'soon-after-delivery' | 'link-burst';

/**
 * What an engagement event (`EmailOpened`, `EmailClicked`) says about its email and request,
 * so that consumers need no lookup: the email's subject and origin, the user agent, and whether
 * the request looks automated (then with the reason).
 */
export interface EngagementEventData {
  emailId: string;
  subject: string;
  templateId?: string;
  campaignId?: string;
  workflowId?: string;
  /** The request's User-Agent header, at most 512 characters; absent when none was sent. */
  userAgent?: string;
  automated: boolean;
  automatedReason?: AutomatedReason;
}

/** Data of `EmailOpened`: the email's open pixel was fetched. */
export interface EmailOpenedEventData extends EngagementEventData {
  /** ISO 8601 time of the request. */
  openedAt: string;
}

/** Data of `EmailClicked`: a tracked link of the email was followed. */
export interface EmailClickedEventData extends EngagementEventData {
  /** The link's original URL (the redirect's target). */
  url: string;
  /** ISO 8601 time of the request. */
  clickedAt: string;
}

/** Data fields of the events of an email stream, by event type. */
export interface EmailStreamEvents {
  EmailQueued: EmailQueuedEventData;
  EmailDeferred: EmailDeferredEventData;
  EmailRetryDue: { attempt: number };
  EmailSent: EmailSentEventData;
  EmailFailed: EmailFailedEventData;
  EmailBounced: EmailBouncedEventData;
  EmailComplained: EmailComplainedEventData;
  EmailSuppressed: EmailSuppressedEventData;
  EmailOpened: EmailOpenedEventData;
  EmailClicked: EmailClickedEventData;
}

// ---------------------------------------------------------------------------------------------
// Received emails (owner: sending service), stream `inboundEmail-<id>`.

/** Stream category of received emails: one stream per message, `inboundEmail-<id>`. */
export const INBOUND_EMAIL_STREAM_CATEGORY = 'inboundEmail';

/**
 * Data of `EmailReceived`: a message addressed to a verified domain of the project reached the
 * inbound SMTP listener; recorded on the contact of its sender (created when new), with the
 * whole message as received. Personal data of that contact (erased with it).
 */
export interface EmailReceivedEventData {
  inboundEmailId: string;
  contactId: string;
  /** The sender (header From, else the envelope sender). */
  from: EmailMailbox;
  /** The project's addresses it was delivered to (envelope recipients). */
  to: string[];
  subject: string;
  /** Its Message-ID header without angle brackets, when it has one. */
  messageId?: string;
  /** Size of the raw message, bytes. */
  size: number;
  /** The raw RFC 5322 message (UTF-8; other bytes replaced). */
  raw: string;
  /** ISO 8601 time of receipt. */
  receivedAt: string;
}

/** Data fields of the events of a received-email stream, by event type. */
export interface InboundEmailStreamEvents {
  EmailReceived: EmailReceivedEventData;
}

// ---------------------------------------------------------------------------------------------
// Segment memberships (owner: segments service), stream `segmentMembership-<pairId>`.

/**
 * Stream category of tracked segment memberships: one stream per segment and contact, whose
 * entries and exits alternate (API reference, "System events and activity").
 */
export const SEGMENT_MEMBERSHIP_STREAM_CATEGORY = 'segmentMembership';

/**
 * Data of `SegmentEntered` / `SegmentExited`: `name` is the system event name
 * (`segment.<slug>.entry` / `segment.<slug>.exit`); the system event's data is
 * `{segmentId, segmentName}`.
 */
export interface SegmentMembershipEventData {
  name: string;
  segmentId: string;
  segmentName: string;
  contactId: string;
}

/** Data fields of the events of a segment membership stream, by event type. */
export interface SegmentMembershipStreamEvents {
  SegmentEntered: SegmentMembershipEventData;
  SegmentExited: SegmentMembershipEventData;
  SegmentMembershipDue: { segmentId: string; contactId: string };
}

/** The types of the membership events that are system events (entries and exits). */
export const SEGMENT_MEMBERSHIP_CHANGES: ReadonlySet<string> = new Set([
  'SegmentEntered',
  'SegmentExited',
]);

/**
 * Stream category of campaigns (`campaign-<campaignId>`, owner: campaigns service); the events
 * other services read.
 */
export const CAMPAIGN_STREAM_CATEGORY = 'campaign';

/** Data fields of the campaign events other services read, by event type. */
export interface CampaignStreamEvents {
  CampaignScheduled: { scheduledFor: string; timerId: string };
  CampaignSent: { sentAt: string; recipients: number };
}

/**
 * Stream category of workflow executions (`workflowExecution-<executionId>`, owner: workflows
 * service); the events other services read.
 */
export const WORKFLOW_EXECUTION_STREAM_CATEGORY = 'workflowExecution';

/** What every end of an execution carries. */
export interface ExecutionEndEventData {
  workflowId: string;
  contactId: string;
  /** ISO 8601 time of the end. */
  completedAt: string;
}

/** Data fields of the execution events other services read, by event type. */
export interface WorkflowExecutionStreamEvents {
  ExecutionStarted: {
    executionId: string;
    workflowId: string;
    projectId: string;
    contactId: string;
    startedAt: string;
  };
  ExecutionCompleted: ExecutionEndEventData;
  ExecutionExited: ExecutionEndEventData & { stepId: string | null; reason: string };
  ExecutionFailed: ExecutionEndEventData & { stepId: string | null; error: string };
  ExecutionCancelled: ExecutionEndEventData;
}

/** Every integration event type, by stream category. */
export interface IntegrationEvents {
  [CONTACT_STREAM_CATEGORY]: ContactStreamEvents;
  [TRACKED_EVENT_STREAM_CATEGORY]: TrackedEventStreamEvents;
  [EMAIL_STREAM_CATEGORY]: EmailStreamEvents;
  [CAMPAIGN_STREAM_CATEGORY]: CampaignStreamEvents;
  [SEGMENT_MEMBERSHIP_STREAM_CATEGORY]: SegmentMembershipStreamEvents;
  [WORKFLOW_EXECUTION_STREAM_CATEGORY]: WorkflowExecutionStreamEvents;
}

/**
 * The events of a stream's event map (`EmailStreamEvents`, …) as a union discriminated by `type`,
 * for narrowing a recorded event: `event as unknown as TypedEvent<EmailStreamEvents>`.
 */
export type TypedEvent<Events> = {
  [Type in keyof Events]: { type: Type; data: Events[Type] };
}[keyof Events];

// ---------------------------------------------------------------------------------------------
// Account mail (owner: accounts service; delivered by the sending service).

/** Stream category of account mail requests: `accountEmail-<id>`. */
export const ACCOUNT_EMAIL_CATEGORY = 'accountEmail';

/** Stream category of their delivery: `accountEmailDelivery-<id>` (the request's id). */
export const ACCOUNT_EMAIL_DELIVERY_CATEGORY = 'accountEmailDelivery';

/** Purpose of the sealing of account mail bodies (`Secrets.seal`). */
export const ACCOUNT_EMAIL_SEAL = 'account-email';

/** What an account email is for. */
export type AccountEmailKind = 'VERIFY_EMAIL' | 'RESET_PASSWORD' | 'INVITATION';

/** Data of `AccountEmailRequested`: `html` sealed with {@link ACCOUNT_EMAIL_SEAL}. */
export interface AccountEmailRequestedData {
  kind: AccountEmailKind;
  to: string;
  subject: string;
  html: string;
}
