/**
 * What a report about an email means for it (issue "Bounces and complaints"). Pure.
 * - A DSN with a recipient whose `Action` is failed and whose `Status` is 5.x.x is a hard bounce:
 *   EmailBounced (once per email). A 4.x.x status is a soft bounce, which the reporting server
 *   retries itself: nothing is recorded.
 * - An ARF report is a complaint: EmailComplained (once per email), unless its feedback type says
 *   the opposite (`not-spam`, RFC 6430) or is about authentication (`auth-failure`, RFC 6591).
 * - Anything else is ignored.
 */
import type { EmailEvent } from '../delivery/events.ts';
import type { FeedbackReport } from './reports.ts';

/** What the email's stream says already, and its recipient. */
export interface ReportTarget {
  recipient: string;
  bounced: boolean;
  complained: boolean;
}

const NOT_COMPLAINTS = new Set(['not-spam', 'auth-failure']);

/**
 * The event a report records on its email, or null (see the module comment); `source` says
 * where a bounce was learnt: a DSN to the return path, or an Amazon SES notification.
 */
export function decideReport(
  report: FeedbackReport,
  target: ReportTarget,
  now: Date,
  source: 'dsn' | 'sns' = 'dsn',
): EmailEvent | null {
  if (report.kind === 'delivery-status') {
    const failed = report.recipients.find(
      (recipient) => recipient.action === 'failed' && recipient.status.startsWith('5.'),
    );
    if (failed === undefined || target.bounced) return null;
    return {
      type: 'EmailBounced',
      data: {
        bounceType: 'hard',
        source,
        recipient: target.recipient,
        status: failed.status,
        diagnostic: failed.diagnostic ?? failed.status,
        bouncedAt: now.toISOString(),
      },
    };
  }
  if (report.kind === 'complaint') {
    if (target.complained || NOT_COMPLAINTS.has(report.feedbackType)) return null;
    return {
      type: 'EmailComplained',
      data: {
        feedbackType: report.feedbackType,
        ...(report.userAgent === undefined ? {} : { userAgent: report.userAgent }),
        recipient: target.recipient,
        complainedAt: now.toISOString(),
      },
    };
  }
  return null;
}
