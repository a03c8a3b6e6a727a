import {
  DuplicateKeyError,
  type Update,
  type ViewCollection,
  type ViewDocument,
} from '@stamp/platform';

import type { TemplateType } from './templates/events.ts';

/** View collection of templates. */
export const TEMPLATES = 'templates';
/** View collection of emails and their delivery status. */
export const EMAILS = 'emails';

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

/**
 * Idempotent write of a view document for event `revision` of its stream: applies `update` only
 * when the stored revision is lower; with `create`, a missing document is inserted. Returns
 * whether the document changed (false for a replayed event).
 */
export async function applyAtRevision(
  collection: ViewCollection,
  id: string,
  revision: number,
  update: Update,
  create: boolean,
): Promise<boolean> {
  const withRevision: Update = { ...update, $set: { ...(update.$set ?? {}), revision } };
  try {
    const result = await collection.updateOne(
      { _id: id, revision: { $lt: revision } },
      withRevision,
      { upsert: create },
    );
    return result.matchedCount > 0 || result.upsertedId !== undefined;
  } catch (error) {
    if (error instanceof DuplicateKeyError) return false;
    throw error;
  }
}
