/**
 * Tracked-event routes (spec part 4, "Events"; secret key, mounted by the gateway behind auth):
 * GET /events, GET /events/stats, GET /events/contact/:contactId, GET /events/names,
 * GET /events/:eventName/usage, DELETE /events/:eventName. (POST /events/track is the tracking
 * router's.)
 */
import { caller, cursorQuery, invalidCursor, parse, validationError } from '@stamp/http-kit';
import type { ViewStore } from '@stamp/platform';
import { type Request, type Response, Router } from 'express';
import { z } from 'zod';

import { isReservedEventName } from '../track/decide.ts';
import type { TrackedEventCommands } from './commands.ts';
import type { TrackedEventQueries } from './queries.ts';
import { eventUsage } from './usage.ts';

/** Dependencies of {@link trackedEventsRouter}. */
export interface TrackedEventsRouterDeps {
  commands: TrackedEventCommands;
  queries: TrackedEventQueries;
  views: ViewStore;
}

/**
 * The log position a `cursor` designates: the value a previous page returned (a log position in
 * decimal); undefined for the first page.
 * @throws ApiError 422 (field `cursor`) for anything else.
 */
function logPosition(cursor: string | undefined): number | undefined {
  if (cursor === undefined) return undefined;
  if (!/^[1-9][0-9]{0,14}$/.test(cursor)) throw invalidCursor();
  return Number(cursor);
}

/** Query of GET /events/contact/:contactId. */
export const pageQuery = cursorQuery;

const eventName = z.string().min(1).max(255).optional();

/** GET /events: `name` (or its alias `eventName`) filters by event name. */
export const listQuery = pageQuery.extend({ name: eventName, eventName });

const param = (req: Request, name: string): string => String(req.params[name]);

/**
 * The tracked-events router.
 * - GET /events?limit&cursor&name: cursor list `{data, cursor, hasMore, total}` of the project's
 *   events, newest first; items `{id, name, contactId, contact: {id, email} | null, data,
 *   createdAt}`; `total` on the first page only.
 * - GET /events/stats: `{total, names: [{name, count}], daily: [{date, count, byName}]}` over the
 *   last 30 UTC days (see TrackedEventStats).
 * - GET /events/contact/:contactId?limit&cursor: that contact's events as a cursor list.
 * - GET /events/names: `{names: [{name, count, lastSeenAt}]}` sorted by name.
 * - GET /events/:eventName/usage: `{workflows, segments, campaigns}`, each `[{id, name}]`.
 * - DELETE /events/:eventName: deletes every event of that name recorded so far, from the views
 *   and from the event log; `{success: true, deleted}`.
 * Errors: 422 VALIDATION_ERROR for a bad `limit`, `cursor` or `name`, or the deletion of a system
 * event name (code `reserved_event`); 404 CONTACT_NOT_FOUND for
 * a contact outside the project; 404 RESOURCE_NOT_FOUND when deleting a name without events.
 */
export function trackedEventsRouter(deps: TrackedEventsRouterDeps): Router {
  const router = Router();

  router.get('/events', async (req: Request, res: Response) => {
    const { projectId } = caller(res);
    const query = parse(listQuery, req.query);
    res.json(
      await deps.queries.page(projectId, {
        limit: query.limit,
        cursor: logPosition(query.cursor),
        name: query.name ?? query.eventName,
      }),
    );
  });

  router.get('/events/stats', async (_req: Request, res: Response) => {
    const { projectId } = caller(res);
    res.json(await deps.queries.stats(projectId));
  });

  router.get('/events/names', async (_req: Request, res: Response) => {
    const { projectId } = caller(res);
    res.json({ names: await deps.queries.names(projectId) });
  });

  router.get('/events/contact/:contactId', async (req: Request, res: Response) => {
    const { projectId } = caller(res);
    const query = parse(pageQuery, req.query);
    res.json(
      await deps.queries.contactPage(projectId, param(req, 'contactId'), {
        limit: query.limit,
        cursor: logPosition(query.cursor),
      }),
    );
  });

  router.get('/events/:eventName/usage', async (req: Request, res: Response) => {
    const { projectId } = caller(res);
    res.json(await eventUsage(deps.views, projectId, param(req, 'eventName')));
  });

  router.delete('/events/:eventName', async (req: Request, res: Response) => {
    const who = caller(res);
    const name = param(req, 'eventName');
    // System events (segment entries and exits) record state their streams still carry.
    if (isReservedEventName(name)) {
      throw validationError([
        {
          field: 'eventName',
          message: `"${name}" is a system event name; system events are not deleted`,
          code: 'reserved_event',
          received: name,
        },
      ]);
    }
    const result = await deps.commands.deleteByName(who.projectId, name, who.requestId);
    res.json({ success: true, deleted: result.deleted });
  });

  return router;
}
