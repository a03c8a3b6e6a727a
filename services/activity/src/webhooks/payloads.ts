/**
 * What an integration event (AsyncAPI document, `docs/asyncapi.yaml`) is posted as to webhook
 * endpoints (API reference, "Webhook endpoints"): its webhook event type and the `data` of the
 * Standard Webhooks body `{type, timestamp, data}`. Pure.
 *
 * | webhook type        | integration event (stream category)                               |
 * |---------------------|-------------------------------------------------------------------|
 * | email.sent          | EmailQueued (`email`): accepted; the fields other services read,  |
 * |                     | without the rendered body and attachments                         |
 * | email.delivered     | EmailSent                                                         |
 * | email.bounced       | EmailBounced; EmailFailed (no `bounceType`), as the activity feed |
 * | email.complained    | EmailComplained                                                   |
 * | email.suppressed    | EmailSuppressed                                                   |
 * | email.opened        | EmailOpened (`automated` tells a person's from a machine's)       |
 * | email.clicked       | EmailClicked                                                      |
 * | email.received      | EmailReceived (`inboundEmail`), the raw message included          |
 * | contact.created     | ContactCreated (`contact`)                                        |
 * | contact.updated     | ContactEmailChanged, ContactDataChanged                           |
 * | contact.deleted     | ContactDeleted                                                    |
 * | contact.subscribed  | ContactSubscribed                                                 |
 * | contact.unsubscribed| ContactUnsubscribed                                               |
 * | event.tracked       | EventTracked (`trackedEvent`)                                     |
 * | segment.entry/.exit | SegmentEntered, SegmentExited (`segmentMembership`)               |
 * | campaign.sent       | CampaignSent (`campaign`)                                         |
 * | workflow.completed  | ExecutionCompleted, -Exited, -Failed, -Cancelled                  |
 * |                     | (`workflowExecution`), with the end as `status`                   |
 *
 * `data` is the event's data with the id of its entity (`emailId`, `contactId`, `eventId`,
 * `campaignId`, `executionId`) and `eventId`, the id of the integration event. Events whose data
 * was erased are not posted (ContactDeleted is, with the contact id alone); nor is an event
 * without a project.
 */
import {
  CAMPAIGN_STREAM_CATEGORY,
  type CampaignStreamEvents,
  CONTACT_STREAM_CATEGORY,
  type ContactStreamEvents,
  EMAIL_STREAM_CATEGORY,
  type EmailStreamEvents,
  entityIdOf,
  INBOUND_EMAIL_STREAM_CATEGORY,
  type InboundEmailStreamEvents,
  SEGMENT_MEMBERSHIP_STREAM_CATEGORY,
  type SegmentMembershipStreamEvents,
  TRACKED_EVENT_STREAM_CATEGORY,
  type TrackedEventStreamEvents,
  type TypedEvent,
  WORKFLOW_EXECUTION_STREAM_CATEGORY,
  type WorkflowExecutionStreamEvents,
} from '@stamp/contracts';
import { type RecordedEvent, streamCategory } from '@stamp/platform';

/** The webhook event types an endpoint may ask for (API reference, "Webhook endpoints"). */
export const WEBHOOK_EVENT_TYPES = [
  'email.sent',
  'email.delivered',
  'email.opened',
  'email.clicked',
  'email.bounced',
  'email.complained',
  'email.suppressed',
  'email.received',
  'contact.created',
  'contact.updated',
  'contact.deleted',
  'contact.subscribed',
  'contact.unsubscribed',
  'event.tracked',
  'segment.entry',
  'segment.exit',
  'campaign.sent',
  'workflow.completed',
] as const;

/** A webhook event type. */
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** What one integration event is posted as. */
export interface WebhookPayload {
  projectId: string;
  type: WebhookEventType;
  data: Record<string, unknown>;
  /** The contact whose personal data `data` holds (the event's `subjectId`). */
  subjectId?: string;
}

/** The status of a workflow execution after each of its ends. */
const EXECUTION_ENDS = {
  ExecutionCompleted: 'COMPLETED',
  ExecutionExited: 'EXITED',
  ExecutionFailed: 'FAILED',
  ExecutionCancelled: 'CANCELLED',
} as const;

/** The webhook type and data of an event, or null when it is not posted. */
function describe(event: RecordedEvent): Pick<WebhookPayload, 'type' | 'data'> | null {
  const category = streamCategory(event.streamId);
  const entityId = entityIdOf(event.streamId);
  const post = (type: WebhookEventType, data: object) => ({
    type,
    data: { eventId: event.id, ...data },
  });

  if (category === CONTACT_STREAM_CATEGORY) {
    const typed = event as unknown as TypedEvent<ContactStreamEvents>;
    const contact = { contactId: entityId };
    if (typed.type === 'ContactDeleted') return post('contact.deleted', contact);
    if (event.erased === true) return null;
    switch (typed.type) {
      case 'ContactCreated':
        return post('contact.created', { ...contact, ...typed.data });
      case 'ContactEmailChanged':
        return post('contact.updated', { ...contact, email: typed.data });
      case 'ContactDataChanged':
        return post('contact.updated', { ...contact, data: typed.data });
      case 'ContactSubscribed':
        return post('contact.subscribed', contact);
      case 'ContactUnsubscribed':
        return post('contact.unsubscribed', contact);
    }
  }
  if (event.erased === true) return null;

  if (category === EMAIL_STREAM_CATEGORY) {
    const typed = event as unknown as TypedEvent<EmailStreamEvents>;
    const email = { emailId: entityId };
    switch (typed.type) {
      case 'EmailQueued': {
        const { contactId, to, from, replyTo, subject, templateId, campaignId } = typed.data;
        const { workflowId, executionId, marketing, sandbox } = typed.data;
        const optional = { replyTo, templateId, campaignId, workflowId, executionId, marketing };
        return post('email.sent', {
          ...email,
          contactId,
          to,
          from,
          subject,
          sandbox,
          ...definedOf(optional),
        });
      }
      case 'EmailSent':
        return post('email.delivered', { ...email, ...typed.data });
      case 'EmailBounced':
      case 'EmailFailed':
        return post('email.bounced', { ...email, ...typed.data });
      case 'EmailComplained':
        return post('email.complained', { ...email, ...typed.data });
      case 'EmailSuppressed':
        return post('email.suppressed', { ...email, ...typed.data });
      case 'EmailOpened':
        return post('email.opened', { ...email, ...typed.data });
      case 'EmailClicked':
        return post('email.clicked', { ...email, ...typed.data });
      default:
        return null;
    }
  }
  if (category === INBOUND_EMAIL_STREAM_CATEGORY) {
    const typed = event as unknown as TypedEvent<InboundEmailStreamEvents>;
    return typed.type === 'EmailReceived' ? post('email.received', typed.data) : null;
  }
  if (category === TRACKED_EVENT_STREAM_CATEGORY) {
    const typed = event as unknown as TypedEvent<TrackedEventStreamEvents>;
    if (typed.type !== 'EventTracked') return null;
    return post('event.tracked', { trackedEventId: entityId, ...typed.data });
  }
  if (category === SEGMENT_MEMBERSHIP_STREAM_CATEGORY) {
    const typed = event as unknown as TypedEvent<SegmentMembershipStreamEvents>;
    if (typed.type === 'SegmentEntered') return post('segment.entry', typed.data);
    if (typed.type === 'SegmentExited') return post('segment.exit', typed.data);
    return null;
  }
  if (category === CAMPAIGN_STREAM_CATEGORY) {
    const typed = event as unknown as TypedEvent<CampaignStreamEvents>;
    if (typed.type !== 'CampaignSent') return null;
    return post('campaign.sent', { campaignId: entityId, ...typed.data });
  }
  if (category === WORKFLOW_EXECUTION_STREAM_CATEGORY) {
    const typed = event as unknown as TypedEvent<WorkflowExecutionStreamEvents>;
    if (typed.type === 'ExecutionStarted') return null;
    const status = EXECUTION_ENDS[typed.type];
    return post('workflow.completed', { executionId: entityId, status, ...typed.data });
  }
  return null;
}

/** The fields of `fields` whose value is not undefined. */
function definedOf(fields: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
}

/** What `event` is posted as to the endpoints of its project, or null when it is not posted. */
export function webhookPayloadOf(event: RecordedEvent): WebhookPayload | null {
  const projectId = event.metadata.projectId;
  if (projectId === undefined || projectId === '') return null;
  const described = describe(event);
  if (described === null) return null;
  const { subjectId } = event.metadata;
  return { projectId, ...described, ...(subjectId === undefined ? {} : { subjectId }) };
}

/** Whether an endpoint asking for `eventTypes` (`['*']`: all) wants events of `type`. */
export const wants = (eventTypes: readonly string[], type: string): boolean =>
  eventTypes.includes('*') || eventTypes.includes(type);
