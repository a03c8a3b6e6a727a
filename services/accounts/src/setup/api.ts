/**
 * Routes of a project's settings and onboarding (spec part 4, "Users, projects"), for the
 * project's secret key or a member's session:
 * - `PATCH /users/@me/projects/:id {name?, tracking?}` → 200 `{id, name, role, createdAt,
 *   publicKeyHint, secretKeyHint, tracking}` (`project.update`: OWNER or ADMIN, else 403
 *   FORBIDDEN; 422 for a name outside 1..100 characters or neither field). `tracking` is the
 *   project's open and click tracking (ENABLED, DISABLED, MARKETING_ONLY), null for the
 *   installation's default (`STAMP_TRACKING`); delivery follows a change within 5 s.
 * - `DELETE /users/@me/projects/:id` → 204 (`project.delete`: OWNER only): its keys stop working
 *   at once and its members lose it; its data stays unreadable behind them.
 * - `POST /users/@me/projects/:id/reset` → 202 `{id, resetAt}` (`project.reset`: OWNER only):
 *   irreversible. Every contact of the project is erased (crypto-shredding, as `DELETE
 *   /contacts/:id`) and its templates, campaigns (scheduled or sending ones are cancelled first),
 *   segments, workflows and their executions, tracked events, emails, inbound mail, activity and
 *   webhook deliveries leave the views; keys, members, settings, domains, webhook endpoints and
 *   suppressions stay. Each service wipes its part once it has projected every event up to the
 *   reset (seconds); data written meanwhile may be wiped too.
 * - `GET /projects/:id/setup-state` → 200 `{steps: [{step, done, completedAt?}], completed}`,
 *   steps DOMAIN_ADDED, DOMAIN_VERIFIED, EMAIL_SENT and EVENT_TRACKED in that order.
 * Another project than the key's, or one the user is not a member of: 404 RESOURCE_NOT_FOUND.
 */
import { type AwaitViews, TRACKING_MODES } from '@stamp/contracts';
import { notFound, parse } from '@stamp/http-kit';
import { type EventStore, streamCommands, type ViewStore } from '@stamp/platform';
import { Router } from 'express';
import { z } from 'zod';

import { authorize, callerOfProject, roleOf } from '../members/permissions.ts';
import { changeSettings, deleteProject, resetProject } from '../projects/decide.ts';
import { projectModel } from '../projects/events.ts';
import { PROJECTS_VIEW, type ProjectView } from '../projects/projection.ts';
import { setupStateOf } from './progress.ts';

/** Body of PATCH /users/@me/projects/:id. */
export const patchBody = z
  .object({
    name: z.string().max(1000).optional(),
    tracking: z.enum(TRACKING_MODES).nullable().optional(),
  })
  .refine((body) => body.name !== undefined || body.tracking !== undefined, {
    message: 'Give a name or a tracking mode',
    path: ['name'],
  });

/** The project settings and onboarding router (see the module comment). */
export function projectSettingsRouter(deps: {
  store: EventStore;
  views: ViewStore;
  awaitViews: AwaitViews;
}): Router {
  const router = Router();
  const projects = streamCommands(deps.store, projectModel);

  router.patch('/users/@me/projects/:id', async (req, res) => {
    const who = callerOfProject(req, res);
    authorize(who, 'project.update');
    const change = parse(patchBody, req.body ?? {});
    const result = await projects.execute(
      who.projectId,
      { projectId: who.projectId, correlationId: who.requestId },
      ({ state }) => changeSettings(state, change),
    );
    await deps.awaitViews(result.position);
    const project = await deps.views
      .collection<ProjectView>(PROJECTS_VIEW)
      .findOne({ _id: who.projectId });
    if (project === null) throw notFound('RESOURCE_NOT_FOUND', 'Project not found');
    res.json({
      id: project._id,
      name: project.name,
      role: roleOf(who),
      createdAt: project.createdAt,
      publicKeyHint: project.publicKeyHint,
      secretKeyHint: project.secretKeyHint,
      tracking: project.tracking ?? null,
    });
  });

  router.delete('/users/@me/projects/:id', async (req, res) => {
    const who = callerOfProject(req, res);
    authorize(who, 'project.delete');
    const result = await projects.execute(
      who.projectId,
      { projectId: who.projectId, correlationId: who.requestId },
      ({ state }) => deleteProject(state, new Date()),
    );
    await deps.awaitViews(result.position);
    res.status(204).end();
  });

  router.post('/users/@me/projects/:id/reset', async (req, res) => {
    const who = callerOfProject(req, res);
    authorize(who, 'project.reset');
    const at = new Date();
    const result = await projects.execute(
      who.projectId,
      { projectId: who.projectId, correlationId: who.requestId },
      ({ state }) => resetProject(state, at),
    );
    await deps.awaitViews(result.position);
    res.status(202).json({ id: who.projectId, resetAt: at.toISOString() });
  });

  router.get('/projects/:id/setup-state', async (req, res) => {
    const who = callerOfProject(req, res);
    res.json(await setupStateOf(deps.views, who.projectId));
  });

  return router;
}
