import { caller, cursorQuery, findCursorPage, notFound, parse } from '@stamp/http-kit';
import {
  OUTBOX_COLLECTION,
  type OutboxDocument,
  readOutboxMessage,
  type ViewStore,
} from '@stamp/platform';
import { Router } from 'express';

import { EMAILS, type EmailDocument } from '../views.ts';

/**
 * An email status as GET /emails/:id returns it, with its opens and clicks (a person's and
 * automated ones apart) and the first of each.
 */
export function toEmailResource(document: EmailDocument): Record<string, unknown> {
  return {
    id: document._id,
    contactId: document.contactId,
    to: document.to,
    from: document.from,
    subject: document.subject,
    templateId: document.templateId,
    sandbox: document.sandbox,
    status: document.status,
    attempts: document.attempts,
    nextRetryAt: document.nextRetryAt,
    createdAt: document.createdAt,
    sentAt: document.sentAt,
    messageId: document.messageId,
    error: document.error,
    ...(document.suppressed === undefined ? {} : { suppressed: document.suppressed }),
    opens: { human: document.humanOpens ?? 0, automated: document.automatedOpens ?? 0 },
    clicks: { human: document.humanClicks ?? 0, automated: document.automatedClicks ?? 0 },
    firstOpenedAt: document.firstOpenedAt ?? null,
    firstClickedAt: document.firstClickedAt ?? null,
  };
}

/**
 * Routes of the local outbox and email status: `GET /outbox?limit&cursor` (captured messages of
 * the project, newest first, without `raw`: read from the list documents only), `GET
 * /outbox/:emailId` (with `raw`, read from the message's parts), `GET /emails/:id`. Unknown ids
 * give 404 RESOURCE_NOT_FOUND.
 */
export function deliveryRouter(deps: { views: ViewStore }): Router {
  const router = Router();
  const outbox = () => deps.views.collection<OutboxDocument>(OUTBOX_COLLECTION);

  router.get('/outbox', async (req, res) => {
    const { projectId } = caller(res);
    const query = parse(cursorQuery, req.query);
    const page = await findCursorPage(outbox(), { projectId }, query, (document) => ({
      id: document._id,
      from: document.from,
      to: document.to,
      subject: document.subject,
      capturedAt: document.capturedAt,
    }));
    res.json(page);
  });

  router.get('/outbox/:emailId', async (req, res) => {
    const { projectId } = caller(res);
    const document = await outbox().findOne({ _id: req.params.emailId, projectId });
    const raw = document === null ? null : await readOutboxMessage(deps.views, document._id);
    if (document === null || raw === null) {
      throw notFound('RESOURCE_NOT_FOUND', 'Message not found in the outbox');
    }
    res.json({
      id: document._id,
      from: document.from,
      to: document.to,
      subject: document.subject,
      capturedAt: document.capturedAt,
      raw,
    });
  });

  router.get('/emails/:id', async (req, res) => {
    const { projectId } = caller(res);
    const document = await deps.views
      .collection<EmailDocument>(EMAILS)
      .findOne({ _id: req.params.id, projectId });
    if (document === null) throw notFound('RESOURCE_NOT_FOUND', 'Email not found');
    res.json(toEmailResource(document));
  });

  return router;
}
