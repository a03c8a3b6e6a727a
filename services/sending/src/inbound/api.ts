/**
 * Routes of received email (secret key): `GET /inbound` (cursor list, newest first, without the
 * message) and `GET /inbound/:id` (with `raw`, the message as received, read from its event).
 * An unknown id gives 404 RESOURCE_NOT_FOUND.
 */
import type { EmailReceivedEventData } from '@stamp/contracts';
import { caller, cursorQuery, findCursorPage, notFound, parse } from '@stamp/http-kit';
import type { EventStore, ViewStore } from '@stamp/platform';
import { Router } from 'express';

import { INBOUND_EMAILS, type InboundEmailDocument, inboundEmailStream } from './received.ts';

const resourceOf = (document: InboundEmailDocument): Record<string, unknown> => ({
  id: document._id,
  contactId: document.contactId,
  from: document.from,
  to: document.to,
  subject: document.subject,
  messageId: document.messageId,
  size: document.size,
  receivedAt: document.receivedAt,
});

/** The received-email router (see the module comment). */
export function inboundRouter(deps: { store: EventStore; views: ViewStore }): Router {
  const router = Router();
  const collection = () => deps.views.collection<InboundEmailDocument>(INBOUND_EMAILS);

  router.get('/inbound', async (req, res) => {
    const { projectId } = caller(res);
    res.json(
      await findCursorPage(collection(), { projectId }, parse(cursorQuery, req.query), resourceOf),
    );
  });

  router.get('/inbound/:id', async (req, res) => {
    const { projectId } = caller(res);
    const document = await collection().findOne({ _id: req.params.id, projectId });
    const [event] =
      document === null ? [] : await deps.store.readStream(inboundEmailStream(document._id), 0, 1);
    if (document === null || event === undefined || event.erased === true) {
      throw notFound('RESOURCE_NOT_FOUND', 'Received email not found');
    }
    res.json({ ...resourceOf(document), raw: (event.data as EmailReceivedEventData).raw });
  });
  return router;
}
