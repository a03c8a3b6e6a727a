/**
 * Who may do what in a project (spec part 2, "Project"; API reference, "Dashboard authentication
 * and members"): the one table of guarded actions, checked by {@link authorize}. The project's
 * secret key acts as an OWNER of its project; a member's session acts with the member's role.
 *
 * | action           | OWNER | ADMIN | MEMBER |
 * |------------------|-------|-------|--------|
 * | resources        | yes   | yes   | yes    |  contacts, templates, campaigns, … (every other route)
 * | members.read     | yes   | yes   | yes    |
 * | members.manage   | yes   | yes   | no     |  invite, remove, change roles below OWNER
 * | owners.manage    | yes   | no    | no     |  make or unmake an OWNER
 * | keys.manage      | yes   | yes   | no     |  regenerate the API keys
 * | project.update   | yes   | yes   | no     |  rename, tracking
 * | project.delete   | yes   | no    | no     |
 * | project.reset    | yes   | no    | no     |  wipe the project's data
 * | billing.read     | yes   | yes   | no     |  caps, consumption, invoices
 * | billing.manage   | yes   | yes   | no     |  change the caps, checkout, billing portal
 *
 * Every member may leave; the last OWNER can neither leave nor be demoted.
 */
import type { Caller, MemberRole } from '@stamp/contracts';
import { ApiError, caller, forbidden } from '@stamp/http-kit';
import type { Request, Response } from 'express';

/** A guarded action. */
export type Action =
  | 'members.read'
  | 'members.manage'
  | 'owners.manage'
  | 'keys.manage'
  | 'project.update'
  | 'project.delete'
  | 'project.reset'
  | 'billing.read'
  | 'billing.manage';

/** The roles allowed each action. */
export const PERMISSIONS: Readonly<Record<Action, readonly MemberRole[]>> = {
  'members.read': ['OWNER', 'ADMIN', 'MEMBER'],
  'members.manage': ['OWNER', 'ADMIN'],
  'owners.manage': ['OWNER'],
  'keys.manage': ['OWNER', 'ADMIN'],
  'project.update': ['OWNER', 'ADMIN'],
  'project.delete': ['OWNER'],
  'project.reset': ['OWNER'],
  'billing.read': ['OWNER', 'ADMIN'],
  'billing.manage': ['OWNER', 'ADMIN'],
};

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
  if (role === null || !allowed.includes(role)) {
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
