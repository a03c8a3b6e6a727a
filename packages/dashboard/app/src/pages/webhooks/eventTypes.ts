/** The event types a webhook endpoint can subscribe to (API reference, "Webhook endpoints"). */
import type { Schema } from '../../api/client';

/** An event type of a webhook endpoint, `*` for every one. */
export type EventType = Schema<'WebhookEndpoint'>['eventTypes'][number];

/** What each event type means; a type the API adds and this list lacks fails the type check. */
export const EVENT_TYPES = {
  '*': 'Every event, including ones added later',
  'email.sent': 'An email was accepted for sending',
  'email.delivered': 'The receiving server accepted an email',
  'email.opened': 'Someone opened an email',
  'email.clicked': 'Someone clicked a link in an email',
  'email.bounced': 'An email bounced',
  'email.complained': 'Someone marked an email as spam',
  'email.suppressed': 'A send to a suppressed address was skipped',
  'email.received': 'An email arrived at one of your domains',
  'contact.created': 'A contact was added',
  'contact.updated': 'A contact changed',
  'contact.deleted': 'A contact was deleted',
  'contact.subscribed': 'A contact subscribed',
  'contact.unsubscribed': 'A contact unsubscribed',
  'event.tracked': 'An event was tracked',
  'segment.entry': 'A contact entered a segment',
  'segment.exit': 'A contact left a segment',
  'campaign.sent': 'A campaign finished sending',
  'workflow.completed': 'A contact finished a workflow',
} satisfies Record<EventType, string>;

/** Whether `value` is an event type. */
export function isEventType(value: string): value is EventType {
  return Object.hasOwn(EVENT_TYPES, value);
}

/** The options of the event-type picker. */
export const EVENT_TYPE_OPTIONS = Object.keys(EVENT_TYPES).map((value) => ({
  value,
  label: value === '*' ? 'Every event (*)' : value,
}));
