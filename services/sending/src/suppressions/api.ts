/**
 * Routes of the suppression list (API reference, "Suppressions"; secret key):
 * `GET /suppressions` (cursor list, newest first), `POST /suppressions {email}` (MANUAL; 201, or
 * 200 with the existing entry when the address already is suppressed), `DELETE
 * /suppressions/:email` (204; 404 RESOURCE_NOT_FOUND when it is not suppressed).
 */
import type { AwaitViews } from '@stamp/contracts';
import {
  caller,
  cursorQuery,
  emailAddress,
  findCursorPage,
  notFound,
  parse,
  requestIdOf,
} from '@stamp/http-kit';
import type { ViewStore } from '@stamp/platform';
import { Router } from 'express';
import { z } from 'zod';

import type { SuppressionCommands } from './commands.ts';
import { suppressionId } from './events.ts';
import { SUPPRESSIONS, type SuppressionDocument } from './projection.ts';

/** A suppression as the API answers it. */
export function toSuppressionResource(document: SuppressionDocument): Record<string, unknown> {
  return {
    email: document.email,
    reason: document.reason,
    createdAt: document.createdAt,
    ...(document.emailId === null ? {} : { emailId: document.emailId }),
  };
}

/** Body of POST /suppressions (and the `:email` of DELETE /suppressions/:email). */
export const createBody = z.object({ email: emailAddress });

/** The suppressions router (see the module comment). */
export function suppressionsRouter(deps: {
  views: ViewStore;
  commands: SuppressionCommands;
  awaitViews: AwaitViews;
}): Router {
  const router = Router();
  const collection = () => deps.views.collection<SuppressionDocument>(SUPPRESSIONS);
  const active = (projectId: string, email: string) =>
    collection().findOne({ _id: suppressionId(projectId, email), projectId, active: true });

  router.get('/suppressions', async (req, res) => {
    const { projectId } = caller(res);
    const query = parse(cursorQuery, req.query);
    const page = await findCursorPage(
      collection(),
      { projectId, active: true },
      query,
      toSuppressionResource,
      { field: 'createdAt', direction: -1 },
    );
    res.json(page);
  });

  router.post('/suppressions', async (req, res) => {
    const { projectId } = caller(res);
    const { email } = parse(createBody, req.body);
    const context = { projectId, correlationId: requestIdOf(res) };
    const result = await deps.commands.suppress(context, { email, reason: 'MANUAL' });
    await deps.awaitViews(result.position);
    const document = await active(projectId, email);
    if (document === null) throw notFound('RESOURCE_NOT_FOUND', 'Suppression not found');
    res.status(result.changed ? 201 : 200).json(toSuppressionResource(document));
  });

  router.delete('/suppressions/:email', async (req, res) => {
    const { projectId } = caller(res);
    const { email } = parse(createBody, { email: req.params.email });
    const result = await deps.commands.remove(
      { projectId, correlationId: requestIdOf(res) },
      email,
    );
    if (!result.changed) throw notFound('RESOURCE_NOT_FOUND', 'This address is not suppressed');
    await deps.awaitViews(result.position);
    res.status(204).end();
  });

  return router;
}
