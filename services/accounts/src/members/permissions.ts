/**
 * Checks of who may do what in a project; the table itself is `@stamp/contracts/permissions`.
 * The project's secret key acts as an OWNER of its project; a member's session acts with the
 * member's role.
 */
import type { Caller, MemberRole } from '@stamp/contracts';
import { type Action, may, PERMISSIONS } from '@stamp/contracts/permissions';
import { ApiError, caller, forbidden } from '@stamp/http-kit';
import type { Request, Response } from 'express';

export { type Action, PERMISSIONS } from '@stamp/contracts/permissions';

/** The role `caller` acts with in its project: its member role, OWNER for a secret key. */
export function roleOf(caller: Caller): MemberRole | null {
  if (caller.userId !== undefined) return caller.role ?? null;
  return caller.keyKind === 'secret' ? 'OWNER' : null;
}

/**
 * Whether `caller` may do `action` in its project.
 * @throws ApiError 403 FORBIDDEN, naming the roles that may.
 */
export function authorize(caller: Caller, action: Action): void {
  const role = roleOf(caller);
  const allowed = PERMISSIONS[action];
  if (!may(role, action)) {
    throw new ApiError(403, 'FORBIDDEN', `Only ${allowed.join(' or ')} members may do this`);
  }
}

/**
 * The caller of a route of project `:id`: the project's secret key or a member's session (the
 * gateway set a session's project from the path, and answered 404 to a user who is not a member).
 * The one access check of every `/projects/:id/…` and `/users/@me/projects/:id/…` route.
 * @throws ApiError 401 INVALID_API_KEY for a public key; 403 PROJECT_ACCESS_DENIED for another
 *   project's key, checked before the project is looked up, so the answer does not tell whether
 *   another project exists.
 */
export function callerOfProject(req: Request, res: Response): Caller {
  const who = caller(res);
  if (who.keyKind !== 'secret') {
    throw new ApiError(401, 'INVALID_API_KEY', 'This endpoint needs a secret key (sk_)');
  }
  if (who.projectId !== req.params.id) {
    throw forbidden('You do not have access to this project', 'PROJECT_ACCESS_DENIED');
  }
  return who;
}
