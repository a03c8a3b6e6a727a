/**
 * Activity items of the API (`GET /activity`) in words: a label and a colour for each type, and
 * a one-line detail read from the item's data (subject, event name, link, reason…).
 */
import type { Schema } from '../../api/client';

/** An item of the activity feed. */
export type ActivityItem = Schema<'ActivityItem'>;

/** A type of activity item. */
export type ActivityType = ActivityItem['type'];

/**
 * How each type of activity item is shown: its label and its badge colour (colours whose light
 * badges keep a 4.5:1 text contrast; orange's text colour is darkened by the theme).
 */
export const ACTIVITY_TYPES: Readonly<Record<ActivityType, { label: string; color: string }>> = {
  'event.triggered': { label: 'Event', color: 'grape' },
  'email.sent': { label: 'Email sent', color: 'blue' },
  'email.delivered': { label: 'Email delivered', color: 'cyan' },
  'email.opened': { label: 'Email opened', color: 'violet' },
  'email.clicked': { label: 'Link clicked', color: 'violet' },
  'email.bounced': { label: 'Email bounced', color: 'red' },
  'email.complained': { label: 'Marked as spam', color: 'orange' },
  'email.received': { label: 'Email received', color: 'blue' },
  'email.suppressed': { label: 'Email not sent (suppressed)', color: 'gray' },
  'contact.subscribed': { label: 'Subscribed', color: 'cyan' },
  'contact.unsubscribed': { label: 'Unsubscribed', color: 'orange' },
  'campaign.sent': { label: 'Campaign sent', color: 'violet' },
  'campaign.scheduled': { label: 'Campaign scheduled', color: 'violet' },
  'workflow.started': { label: 'Workflow started', color: 'blue' },
  'workflow.completed': { label: 'Workflow finished', color: 'blue' },
};

/** The text of `data[key]` when it is a string or a number. */
function textOf(data: Record<string, unknown>, key: string): string | undefined {
  const value = data[key];
  if (typeof value === 'string' && value !== '') return value;
  if (typeof value === 'number') return value.toLocaleString();
  return undefined;
}

/** `key: value` pairs of a flat data object (strings, numbers, booleans), comma-separated. */
export function dataSummary(data: unknown): string | undefined {
  if (typeof data !== 'object' || data === null) return undefined;
  const pairs = Object.entries(data)
    .filter(([, value]) => ['string', 'number', 'boolean'].includes(typeof value))
    .map(([key, value]) => `${key}: ${String(value)}`);
  return pairs.length === 0 ? undefined : pairs.join(', ');
}

/** Reasons of suppressed sends, in words. */
const SUPPRESSION_REASONS: Readonly<Record<string, string>> = {
  HARD_BOUNCE: 'the address bounced before',
  COMPLAINT: 'the recipient marked an earlier email as spam',
  MANUAL: 'the address is on the suppression list',
};

/** A one-line detail of an activity item from its data, if it has one worth showing. */
export function activityDetail(item: Pick<ActivityItem, 'type' | 'data'>): string | undefined {
  const { data } = item;
  const subject = textOf(data, 'subject');
  switch (item.type) {
    case 'event.triggered': {
      const name = textOf(data, 'name');
      const details = dataSummary(data.data);
      if (name === undefined) return details;
      return details === undefined ? name : `${name} (${details})`;
    }
    case 'email.opened':
      return data.automated === true ? 'Opened by an automated system (not counted)' : subject;
    case 'email.clicked': {
      const url = textOf(data, 'url');
      return data.automated === true ? `${url ?? 'A link'} (automated, not counted)` : url;
    }
    case 'email.bounced':
      return textOf(data, 'error') ?? textOf(data, 'bounceType') ?? subject;
    case 'email.complained':
      return textOf(data, 'feedbackType') ?? subject;
    case 'email.suppressed': {
      const reason = textOf(data, 'reason');
      return reason === undefined ? subject : (SUPPRESSION_REASONS[reason] ?? reason);
    }
    case 'campaign.sent': {
      const recipients = textOf(data, 'recipients');
      return recipients === undefined ? undefined : `${recipients} recipients`;
    }
    case 'campaign.scheduled': {
      const when = textOf(data, 'scheduledFor');
      return when === undefined ? undefined : `For ${new Date(when).toLocaleString()}`;
    }
    case 'workflow.completed': {
      const status = textOf(data, 'status');
      const reason = textOf(data, 'reason');
      if (status === undefined) return reason;
      return reason === undefined ? status.toLowerCase() : `${status.toLowerCase()}: ${reason}`;
    }
    default:
      return subject;
  }
}
