/**
 * Routes of the signed-in user (spec part 4, "Users, projects"), which need a session cookie:
 * - `GET /users/@me` → 200 `{id, email, name, createdAt}`.
 * - `GET /users/@me/projects` → 200 the projects the user is a member of, oldest first:
 *   `[{id, name, role, createdAt, publicKeyHint, secretKeyHint}]`.
 * - `POST /users/@me/projects {name}` → 201 the new project, owned by the user, with its keys
 *   (`publicKey`, `secretKey`, shown this once).
 * A request with an API key instead gets 401 UNAUTHORIZED.
 */
import { ApiError, caller, parse } from '@stamp/http-kit';
import type { Response } from 'express';
import { Router } from 'express';
import { z } from 'zod';

import type { UsersApi } from './commands.ts';

/** Body of POST /users/@me/projects. */
export const createBody = z.object({ name: z.string().trim().min(1).max(100) });

/** The signed-in user's id; 401 UNAUTHORIZED for a caller with an API key. */
function userOf(res: Response): string {
  const { userId } = caller(res);
  if (userId === undefined) {
    throw new ApiError(401, 'UNAUTHORIZED', 'This route needs a signed-in user', {
      suggestion: 'Log in with POST /auth/login and send its session cookie.',
    });
  }
  return userId;
}

/** The user routes (see the module comment). */
export function usersRouter(deps: { users: UsersApi }): Router {
  const router = Router();

  router.get('/users/@me', async (_req, res) => {
    const found = await deps.users.user(userOf(res));
    if (found === null) throw new ApiError(401, 'UNAUTHORIZED', 'This user no longer exists');
    res.json(found);
  });

  router.get('/users/@me/projects', async (_req, res) => {
    res.json(await deps.users.projectsOf(userOf(res)));
  });

  router.post('/users/@me/projects', async (req, res) => {
    const userId = userOf(res);
    const { name } = parse(createBody, req.body ?? {});
    res.status(201).json(await deps.users.createProject(userId, name, caller(res).requestId));
  });

  return router;
}
