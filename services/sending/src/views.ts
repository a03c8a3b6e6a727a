import { EMAILS_VIEW } from '@stamp/contracts';
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
export type EmailStatus = 'QUEUED' | 'SENT' | 'FAILED';

/** A document of the `emails` view. Dates ISO 8601. */
export interface EmailDocument extends ViewDocument {
  projectId: string;
  contactId: string;
  to: { name?: string; email: string };
  from: { name?: string; email: string };
  subject: string;
  templateId: string | null;
  campaignId: string | null;
  sandbox: boolean;
  status: EmailStatus;
  /** Deferred delivery attempts so far. */
  attempts: number;
  nextRetryAt: string | null;
  createdAt: string;
  sentAt: string | null;
  messageId: string | null;
  error: string | null;
  revision: number;
}
