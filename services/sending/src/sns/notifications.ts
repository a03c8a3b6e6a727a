/**
 * Amazon SES notifications (the `Message` of an SNS notification; AWS SES developer guide,
 * "Amazon SNS notification contents"): a Bounce (Permanent: a hard bounce; Transient: the soft
 * kind, retried by SES), a Complaint, or a Delivery. Read into the reports of the inbound
 * listener, so both paths decide alike.
 */
import { z } from 'zod';

import type { FeedbackReport } from '../inbound/reports.ts';

const recipient = z.object({
  emailAddress: z.string().optional(),
  status: z.string().optional(),
  diagnosticCode: z.string().optional(),
});

const notification = z.object({
  notificationType: z.string().optional(),
  eventType: z.string().optional(),
  mail: z.object({
    commonHeaders: z.object({ messageId: z.string().optional() }).optional(),
    headers: z.array(z.object({ name: z.string(), value: z.string() })).optional(),
  }),
  bounce: z
    .object({ bounceType: z.string(), bouncedRecipients: z.array(recipient).default([]) })
    .optional(),
  complaint: z
    .object({
      complaintFeedbackType: z.string().optional(),
      userAgent: z.string().optional(),
    })
    .optional(),
});

/** `<id@host>` or `id@host` → `id@host`. */
export const bareMessageId = (value: string): string => value.trim().replace(/^<|>$/g, '');

/**
 * The Message-ID of the email an SES notification is about, and what it reports; null when the
 * text is not an SES notification or names no Message-ID.
 */
export function readSesNotification(
  text: string,
): { messageId: string; report: FeedbackReport } | null {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return null;
  }
  const parsed = notification.safeParse(json);
  if (!parsed.success) return null;
  const ses = parsed.data;
  const header = ses.mail.headers?.find((entry) => entry.name.toLowerCase() === 'message-id');
  const messageId = ses.mail.commonHeaders?.messageId ?? header?.value;
  if (messageId === undefined || bareMessageId(messageId) === '') return null;
  const type = ses.notificationType ?? ses.eventType;
  let report: FeedbackReport = { kind: 'other' };
  if (type === 'Bounce' && ses.bounce !== undefined) {
    const permanent = ses.bounce.bounceType === 'Permanent';
    report = {
      kind: 'delivery-status',
      recipients: ses.bounce.bouncedRecipients.map((entry) => ({
        action: permanent ? 'failed' : 'delayed',
        // A permanent bounce is a hard one whatever status the receiving server gave.
        status:
          permanent && entry.status?.startsWith('5.') !== true
            ? '5.0.0'
            : (entry.status ?? '4.0.0'),
        ...(entry.emailAddress === undefined ? {} : { finalRecipient: entry.emailAddress }),
        ...(entry.diagnosticCode === undefined
          ? {}
          : { diagnostic: entry.diagnosticCode.replace(/^[^;]*;\s*/, '') }),
      })),
    };
  } else if (type === 'Complaint' && ses.complaint !== undefined) {
    const { complaintFeedbackType, userAgent } = ses.complaint;
    report = {
      kind: 'complaint',
      feedbackType: complaintFeedbackType?.toLowerCase() ?? 'abuse',
      ...(userAgent === undefined ? {} : { userAgent }),
    };
  }
  return { messageId: bareMessageId(messageId), report };
}
