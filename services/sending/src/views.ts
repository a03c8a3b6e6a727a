import { EMAIL_STATUSES, EMAILS_VIEW, type EmailStatus } from '@stamp/contracts';
import type { ViewDocument } from '@stamp/platform';

import type { TemplateType } from './templates/events.ts';

/** View collection of templates. */
export const TEMPLATES = 'templates';
/** View collection of emails and their delivery status. */
export const EMAILS = EMAILS_VIEW;

/** A document of the `templates` view. Dates ISO 8601. */
export interface TemplateDocument extends ViewDocument {
  projectId: string;
  name: string;
  subject: string;
  body: string;
  type: TemplateType;
  from?: string;
  fromName?: string;
  replyTo?: string;
  createdAt: string;
  updatedAt: string;
  deleted: boolean;
  revision: number;
}

/** Email status of the `emails` view (API reference, "Enums"). */
export type { EmailStatus } from '@stamp/contracts';
/** The later-ranked of `current` (absent: none yet) and `next`. */
export function laterStatus(current: EmailStatus | undefined, next: EmailStatus): EmailStatus {
  if (current === undefined) return next;
  return EMAIL_STATUSES.indexOf(next) > EMAIL_STATUSES.indexOf(current) ? next : current;
}

/** A document of the `emails` view. Dates ISO 8601. */
export interface EmailDocument extends ViewDocument {
  projectId: string;
  contactId: string;
  to: { name?: string; email: string };
  from: { name?: string; email: string };
  subject: string;
  templateId: string | null;
  campaignId: string | null;
  /** Workflow whose SEND_EMAIL step sent the email; absent on documents written before it was kept. */
  workflowId?: string | null;
  sandbox: boolean;
  status: EmailStatus;
  /**
   * Opens and clicks so far, a person's (`human…`) and automated ones apart, and the times of
   * the first and last of each (absent until there is one).
   */
  /** Why the email was not sent: its address is on the suppression list (absent otherwise). */
  suppressed?: 'HARD_BOUNCE' | 'COMPLAINT' | 'MANUAL';
  humanOpens?: number;
  automatedOpens?: number;
  humanClicks?: number;
  automatedClicks?: number;
  firstOpenedAt?: string;
  lastOpenedAt?: string;
  firstClickedAt?: string;
  lastClickedAt?: string;
  /** Deferred delivery attempts so far. */
  attempts: number;
  nextRetryAt: string | null;
  createdAt: string;
  sentAt: string | null;
  messageId: string | null;
  error: string | null;
  revision: number;
}
