/**
 * Project protection routes (spec part 4, "security"; secret key of the project until user
 * logins exist): `GET /projects/:id/security` and `GET /users/@me/projects/:id/security` report
 * the window's sends, bounce and complaint rates, the thresholds and the suspensions;
 * `POST /projects/:id/security/reinstate` lifts a suspension (rates count afresh from then).
 * 401 INVALID_API_KEY for a public key, 403 PROJECT_ACCESS_DENIED for another project's key.
 */
import type { AwaitViews } from '@stamp/contracts';
import { caller, notFound } from '@stamp/http-kit';
import type { EventStore, ViewStore } from '@stamp/platform';
import { type Request, type Response, Router } from 'express';

import type { ProjectRecord } from '../accounts.ts';
import { callerOfProject } from '../members/permissions.ts';
import { projectStreamId, type SuspensionData } from '../projects/events.ts';
import { PROTECTION, ratesOf, windowStart } from './decide.ts';
import { type ProtectionDeps, reinstateProject, windowCounts } from './commands.ts';

/** Suspensions listed by the security report, newest first. */
const RECENT_SUSPENSIONS = 10;

/** Dependencies of {@link protectionRouter}. */
export interface ProtectionRouterDeps extends ProtectionDeps {
  store: EventStore;
  views: ViewStore;
  awaitViews: AwaitViews;
}

/** The protection router (see the module comment). */
export function protectionRouter(deps: ProtectionRouterDeps): Router {
  const router = Router();

  async function projectOf(req: Request, res: Response): Promise<ProjectRecord> {
    const who = callerOfProject(req, res);
    const project = await deps.project(who.projectId);
    if (project === null) throw notFound('RESOURCE_NOT_FOUND', 'Project not found');
    return project;
  }

  async function report(project: ProjectRecord): Promise<Record<string, unknown>> {
    const now = deps.now?.() ?? new Date();
    const since = windowStart(project, now);
    const counts = await windowCounts(deps.views, project.id, since);
    const suspensions = (await deps.store.readStream(projectStreamId(project.id)))
      .filter((event) => event.type === 'ProjectSuspended')
      .map((event) => event.data as SuspensionData)
      .reverse()
      .slice(0, RECENT_SUSPENSIONS);
    return {
      projectId: project.id,
      status: project.suspension === null ? 'ACTIVE' : 'SUSPENDED',
      suspension: project.suspension,
      window: { days: PROTECTION.windowMs / 86_400_000, since: since.toISOString() },
      ...counts,
      ...ratesOf(counts),
      thresholds: {
        minimumSends: PROTECTION.minimumSends,
        bounceRate: PROTECTION.bounceRate,
        complaintRate: PROTECTION.complaintRate,
      },
      recentSuspensions: suspensions,
    };
  }

  const security = async (req: Request, res: Response): Promise<void> => {
    res.json(await report(await projectOf(req, res)));
  };
  router.get('/projects/:id/security', security);
  router.get('/users/@me/projects/:id/security', security);

  router.post('/projects/:id/security/reinstate', async (req, res) => {
    const project = await projectOf(req, res);
    const result = await reinstateProject(deps, project.id, caller(res).requestId);
    await deps.awaitViews(result.position);
    res.json(await report((await deps.project(project.id)) ?? project));
  });
  return router;
}
