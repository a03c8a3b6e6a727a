import type { AwaitViews } from '@stamp/contracts';
import { notFound } from '@stamp/http-kit';
import { Router } from 'express';

import type { AccountsApi } from '../accounts.ts';
import { authorize, callerOfProject } from '../members/permissions.ts';

/** Dependencies of {@link projectsRouter}. */
export interface ProjectsRouterDeps {
  api: Pick<AccountsApi, 'issueKeys' | 'project'>;
  awaitViews: AwaitViews;
}

/**
 * Routes of projects (spec part 4, "Users, projects"):
 * - `POST /users/@me/projects/:id/regenerate-keys` → 200 `{id, name, publicKey, secretKey}`.
 *   The caller authenticates with the project's secret key or a member's session (the gateway
 *   takes the project from the path and answers 404 to a user who is not a member): 401
 *   INVALID_API_KEY for a public key, 404 RESOURCE_NOT_FOUND for an unknown project, 403
 *   PROJECT_ACCESS_DENIED when the key's project is another one, 403 FORBIDDEN for a MEMBER. The old keys stop working
 *   before the response is sent (spec part 5, rule 6).
 */
export function projectsRouter(deps: ProjectsRouterDeps): Router {
  const router = Router();
  router.post('/users/@me/projects/:id/regenerate-keys', async (req, res) => {
    const who = callerOfProject(req, res);
    const id = who.projectId;
    authorize(who, 'keys.manage');
    const project = await deps.api.project(id);
    if (project === null) throw notFound('RESOURCE_NOT_FOUND', 'Project not found');
    const issued = await deps.api.issueKeys(id, undefined, who.requestId);
    await deps.awaitViews(issued.position);
    res.status(200).json({
      id,
      name: issued.name,
      publicKey: issued.publicKey,
      secretKey: issued.secretKey,
    });
  });
  return router;
}
