/**
 * What one integration event means for the activity feed (API reference, "System events and
 * activity"). Pure: the projection carries the decision out.
 *
 * | event (stream category)            | activity                                           |
 * |------------------------------------|----------------------------------------------------|
 * | EventTracked (`trackedEvent`)      | `event.triggered` `{name, data}`                   |
 * | SegmentEntered, SegmentExited      | `event.triggered` `{name, data}`: the system event |
 * | (`segmentMembership`)              | `segment.<slug>.entry` / `.exit`, data             |
 * |                                    | `{segmentId, segmentName}`                         |
 * | EmailQueued (`email`)              | `email.sent` `{subject, templateId?}`: accepted    |
 * | EmailSent (`email`)                | `email.delivered`: the receiving server took it    |
 * | EmailFailed (`email`)              | `email.bounced` `{error}`: rejected or retries out |
 * | EmailBounced (`email`)             | `email.bounced` `{bounceType, responseCode?, error}`|
 * | EmailComplained (`email`)          | `email.complained` `{feedbackType}`                |
 * | EmailSuppressed (`email`)          | `email.suppressed` `{reason}`: not sent            |
 * | EmailOpened (`email`)              | `email.opened` `{automated, automatedReason?}`     |
 * | EmailClicked (`email`)             | `email.clicked` `{url, automated, automatedReason?}`|
 * | EmailReceived (`inboundEmail`)     | `email.received` `{subject}`: mail for a domain    |
 * | ContactSubscribed (`contact`)      | `contact.subscribed`                               |
 * | ContactUnsubscribed (`contact`)    | `contact.unsubscribed`                             |
 * | ContactDeleted (`contact`)         | the contact's items are removed                    |
 * | CampaignScheduled (`campaign`)     | `campaign.scheduled` `{campaignId, scheduledFor}`  |
 * | CampaignSent (`campaign`)          | `campaign.sent` `{campaignId, recipients}`         |
 * | ExecutionStarted                   | `workflow.started` `{workflowId, executionId}`     |
 * | (`workflowExecution`)              |                                                    |
 * | ExecutionCompleted, ExecutionExited| `workflow.completed` `{workflowId, executionId,    |
 * | ExecutionFailed, ExecutionCancelled| status, reason?}`: the end, with its status        |
 *
 * Email items carry the email's `campaignId` when it has one; campaign items have no contact
 * (`contactId` empty).
 *
 * Events without a project, events whose data was erased (crypto-shredding) and every other type
 * add nothing; ContactDeleted is acted on even when erased, since it needs no data.
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

import type { ActivityType } from './items.ts';

/** A new feed item, complete. */
export interface NewActivityItem {
  /** Id of the source event. */
  id: string;
  projectId: string;
  type: ActivityType;
  contactId: string;
  emailId?: string;
  /** ISO 8601 time of the source event. */
  at: string;
  data: Record<string, unknown>;
}

/** The decision of {@link decideActivity}. */
export type ActivityChange =
  | { kind: 'none' }
  | { kind: 'add'; item: NewActivityItem }
  /**
   * An outcome of an email: an item of `type` joined with the email's `email.sent` item (its
   * contact, subject and template); dropped when that item does not exist (deleted contact).
   */
  | {
      kind: 'outcome';
      id: string;
      projectId: string;
      type: ActivityType;
      emailId: string;
      at: string;
      data: Record<string, unknown>;
    }
  | { kind: 'forgetContact'; projectId: string; contactId: string };

const NONE: ActivityChange = { kind: 'none' };

/** Text shaped like an email address (`local@domain`), in an SMTP reply for example. */
const ADDRESS = /[^\s<>()[\]@,;:"']+@[^\s<>()[\]@,;:"']+/g;

/**
 * `text` with every email address replaced by `[address]`: SMTP replies often quote the
 * recipient, and the feed stores no addresses.
 */
export const maskAddresses = (text: string): string => text.replace(ADDRESS, '[address]');

/** An address in a URL (plain or with its `@` percent-encoded), without the URL around it. */
const URL_ADDRESS = /[A-Za-z0-9._%+-]+(?:@|%40)[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+/gi;

/** `url` with every email address in it (a query parameter, say) replaced by `[address]`. */
export const maskUrlAddresses = (url: string): string => url.replace(URL_ADDRESS, '[address]');

/** Decides the feed change of one recorded event. */
export function decideActivity(event: RecordedEvent): ActivityChange {
  const projectId = event.metadata.projectId;
  if (projectId === undefined || projectId === '') return NONE;
  const category = streamCategory(event.streamId);
  const base = { id: event.id, projectId, at: event.createdAt };

  if (category === CONTACT_STREAM_CATEGORY) {
    const contactId = entityIdOf(event.streamId);
    const typed = event as unknown as TypedEvent<ContactStreamEvents>;
    if (typed.type === 'ContactDeleted') return { kind: 'forgetContact', projectId, contactId };
    if (event.erased === true) return NONE;
    if (typed.type === 'ContactSubscribed' || typed.type === 'ContactUnsubscribed') {
      const type =
        typed.type === 'ContactSubscribed' ? 'contact.subscribed' : 'contact.unsubscribed';
      return { kind: 'add', item: { ...base, type, contactId, data: {} } };
    }
    return NONE;
  }
  if (event.erased === true) return NONE;

  /** An `event.triggered` item: a tracked event, or a system event (segment entry, exit). */
  const triggered = (
    contactId: string,
    name: string,
    data: Record<string, unknown>,
  ): ActivityChange => ({
    kind: 'add',
    item: { ...base, type: 'event.triggered', contactId, data: { name, data } },
  });

  if (category === TRACKED_EVENT_STREAM_CATEGORY) {
    const typed = event as unknown as TypedEvent<TrackedEventStreamEvents>;
    if (typed.type !== 'EventTracked') return NONE;
    const { name, contactId, data } = typed.data;
    return triggered(contactId, name, { ...data });
  }

  if (category === SEGMENT_MEMBERSHIP_STREAM_CATEGORY) {
    const typed = event as unknown as TypedEvent<SegmentMembershipStreamEvents>;
    if (typed.type !== 'SegmentEntered' && typed.type !== 'SegmentExited') return NONE;
    const { name, contactId, segmentId, segmentName } = typed.data;
    return triggered(contactId, name, { segmentId, segmentName });
  }

  if (category === EMAIL_STREAM_CATEGORY) {
    const emailId = entityIdOf(event.streamId);
    const typed = event as unknown as TypedEvent<EmailStreamEvents>;
    switch (typed.type) {
      case 'EmailQueued': {
        const { contactId, subject, templateId, campaignId } = typed.data;
        return {
          kind: 'add',
          item: {
            ...base,
            type: 'email.sent',
            contactId,
            emailId,
            data: {
              subject,
              ...(templateId === undefined ? {} : { templateId }),
              ...(campaignId === undefined ? {} : { campaignId }),
            },
          },
        };
      }
      case 'EmailSent':
        return { kind: 'outcome', ...base, type: 'email.delivered', emailId, data: {} };
      case 'EmailFailed':
        return {
          kind: 'outcome',
          ...base,
          type: 'email.bounced',
          emailId,
          data: { error: maskAddresses(typed.data.error) },
        };
      case 'EmailBounced':
        return {
          kind: 'outcome',
          ...base,
          type: 'email.bounced',
          emailId,
          data: {
            bounceType: typed.data.bounceType,
            ...(typed.data.responseCode === undefined
              ? {}
              : { responseCode: typed.data.responseCode }),
            error: maskAddresses(typed.data.diagnostic),
          },
        };
      case 'EmailComplained':
        return {
          kind: 'outcome',
          ...base,
          type: 'email.complained',
          emailId,
          data: { feedbackType: typed.data.feedbackType },
        };
      case 'EmailSuppressed':
        return {
          kind: 'outcome',
          ...base,
          type: 'email.suppressed',
          emailId,
          data: { reason: typed.data.reason },
        };
      case 'EmailOpened':
      case 'EmailClicked': {
        const { automated, automatedReason } = typed.data;
        return {
          kind: 'outcome',
          ...base,
          type: typed.type === 'EmailOpened' ? 'email.opened' : 'email.clicked',
          emailId,
          data: {
            // A link may carry an address in its query: the feed stores none.
            ...(typed.type === 'EmailClicked' ? { url: maskUrlAddresses(typed.data.url) } : {}),
            automated,
            ...(automatedReason === undefined ? {} : { automatedReason }),
          },
        };
      }
      default:
        return NONE;
    }
  }
  if (category === INBOUND_EMAIL_STREAM_CATEGORY) {
    const typed = event as unknown as TypedEvent<InboundEmailStreamEvents>;
    if (typed.type !== 'EmailReceived') return NONE;
    const { contactId, subject } = typed.data;
    return { kind: 'add', item: { ...base, type: 'email.received', contactId, data: { subject } } };
  }
  if (category === WORKFLOW_EXECUTION_STREAM_CATEGORY) return decideExecution(event, base);
  if (category === CAMPAIGN_STREAM_CATEGORY) {
    const campaignId = entityIdOf(event.streamId);
    const typed = event as unknown as TypedEvent<CampaignStreamEvents>;
    if (typed.type === 'CampaignScheduled') {
      const { scheduledFor } = typed.data;
      const data = { campaignId, scheduledFor };
      return { kind: 'add', item: { ...base, type: 'campaign.scheduled', contactId: '', data } };
    }
    if (typed.type === 'CampaignSent') {
      const { recipients } = typed.data;
      const data = { campaignId, recipients };
      return { kind: 'add', item: { ...base, type: 'campaign.sent', contactId: '', data } };
    }
  }
  return NONE;
}

/** Status of an execution after each of its ends. */
const END_STATUS = {
  ExecutionCompleted: 'COMPLETED',
  ExecutionExited: 'EXITED',
  ExecutionFailed: 'FAILED',
  ExecutionCancelled: 'CANCELLED',
} as const;

/** `workflow.started` and `workflow.completed` items of an execution's start and end. */
function decideExecution(
  event: RecordedEvent,
  base: { id: string; projectId: string; at: string },
): ActivityChange {
  const executionId = entityIdOf(event.streamId);
  const typed = event as unknown as TypedEvent<WorkflowExecutionStreamEvents>;
  if (typed.type === 'ExecutionStarted') {
    const { workflowId, contactId } = typed.data;
    const data = { workflowId, executionId };
    return { kind: 'add', item: { ...base, type: 'workflow.started', contactId, data } };
  }
  if (!(typed.type in END_STATUS)) return NONE;
  const { workflowId, contactId } = typed.data;
  // Ends recorded before they carried their workflow and contact are not in the feed.
  if (typeof contactId !== 'string' || typeof workflowId !== 'string') return NONE;
  const data = {
    workflowId,
    executionId,
    status: END_STATUS[typed.type],
    ...(typed.type === 'ExecutionExited' ? { reason: typed.data.reason } : {}),
    ...(typed.type === 'ExecutionFailed' ? { reason: typed.data.error } : {}),
  };
  return { kind: 'add', item: { ...base, type: 'workflow.completed', contactId, data } };
}
