/**
 * Routes of a project's members (spec part 4, "Projects"; API reference, "Dashboard
 * authentication and members"), for the project's secret key or a member's session; the
 * permission table of `permissions.ts` applies (403 FORBIDDEN):
 * - `GET /projects/:id/members` → 200 `[{userId, email, name, role, createdAt}]`, oldest first.
 * - `POST /projects/:id/members {email, role: "ADMIN"|"MEMBER"}` → 201 the member: a user with
 *   an account is added at once (409 CONFLICT when already a member); every other address gets an
 *   invitation email (202 `{email, role, invited: true}`), and signing up with its `inviteToken`
 *   joins the project with that role.
 * - `PATCH /projects/:id/members/:userId {role}` → 200 the member (making or unmaking an OWNER
 *   takes an OWNER; 409 CONFLICT for the last OWNER's demotion).
 * - `DELETE /projects/:id/members/:userId` → 204: a member leaves (whatever the role), or is removed
 *   (`members.manage`; an OWNER only by an OWNER); 409 CONFLICT for the last OWNER.
 * Another project than the key's, or one the user is not a member of: 404 RESOURCE_NOT_FOUND.
 */
import type { AwaitViews, Caller, MemberRole } from '@stamp/contracts';
import { emailAddress, notFound, parse } from '@stamp/http-kit';
import { type EventStore, streamCommands, type ViewStore } from '@stamp/platform';
import { type Request, type Response, Router } from 'express';
import { z } from 'zod';

import type { AccountMail } from '../account-mail/commands.ts';
import { projectModel } from '../projects/events.ts';
import {
  MEMBERS_VIEW,
  type MemberView,
  memberId,
  PROJECTS_VIEW,
  type ProjectView,
} from '../projects/projection.ts';
import { USERS_VIEW, type UserView } from '../users/projection.ts';
import { addMember, changeRole, removeMember } from './decide.ts';
import { authorize, callerOfProject } from './permissions.ts';

/** Dependencies of {@link membersRouter}. */
export interface MembersRouterDeps {
  /** Sends invitations to people without an account. */
  mail: AccountMail;
  store: EventStore;
  views: ViewStore;
  awaitViews: AwaitViews;
}

const ROLES = ['OWNER', 'ADMIN', 'MEMBER'] as const;
/** Body of POST /projects/:id/members. */
export const addBody = z.object({ email: emailAddress, role: z.enum(['ADMIN', 'MEMBER']) });
/** Body of PATCH /projects/:id/members/:userId. */
export const patchBody = z.object({ role: z.enum(ROLES) });

/** The members router (see the module comment). */
export function membersRouter(deps: MembersRouterDeps): Router {
  const router = Router();
  const projects = streamCommands(deps.store, projectModel);
  const members = () => deps.views.collection<MemberView>(MEMBERS_VIEW);
  const users = () => deps.views.collection<UserView>(USERS_VIEW);

  /** The caller and the project of the path, which must be the caller's. */
  function scope(req: Request, res: Response): { who: Caller; projectId: string } {
    const who = callerOfProject(req, res);
    return { who, projectId: who.projectId };
  }

  /** Members of `projectId` as the API answers them. */
  async function resources(projectId: string, userIds?: readonly string[]) {
    const filter: Record<string, unknown> = { projectId, active: true };
    if (userIds !== undefined) filter.userId = { $in: userIds };
    const found = await members().find(filter, { sort: { createdAt: 1, _id: 1 } });
    const people = await users().find({ _id: { $in: found.map((member) => member.userId) } });
    const byId = new Map(people.map((user) => [user._id, user]));
    return found.map((member) => ({
      userId: member.userId,
      email: byId.get(member.userId)?.email ?? '',
      name: byId.get(member.userId)?.name ?? '',
      role: member.role,
      createdAt: member.createdAt,
    }));
  }

  /** The member `userId` of `projectId`, answered after `position` reached the views. */
  async function memberAfter(projectId: string, userId: string, position: number) {
    await deps.awaitViews(position);
    const [found] = await resources(projectId, [userId]);
    if (found === undefined) throw notFound('RESOURCE_NOT_FOUND', 'Member not found');
    return found;
  }

  /** The role of `userId` in `projectId` as the views show it, or null. */
  async function currentRole(projectId: string, userId: string): Promise<MemberRole | null> {
    const found = await members().findOne({ _id: memberId(projectId, userId), active: true });
    return found?.role ?? null;
  }

  router.get('/projects/:id/members', async (req, res) => {
    const { who, projectId } = scope(req, res);
    authorize(who, 'members.read');
    res.json(await resources(projectId));
  });

  router.post('/projects/:id/members', async (req, res) => {
    const { who, projectId } = scope(req, res);
    authorize(who, 'members.manage');
    const { email, role } = parse(addBody, req.body ?? {});
    const address = email.trim().toLowerCase();
    const user = await users().findOne({ email: address });
    if (user === null || user.passwordHash === null) {
      const project = await deps.views
        .collection<ProjectView>(PROJECTS_VIEW)
        .findOne({ _id: projectId });
      await deps.mail.invite(
        { email: address, projectId, role },
        project?.name ?? 'a project',
        who.requestId,
      );
      res.status(202).json({ email: address, role, invited: true });
      return;
    }
    const result = await projects.execute(
      projectId,
      { projectId, correlationId: who.requestId },
      ({ state }) => addMember(state, user._id, role),
    );
    res.status(201).json(await memberAfter(projectId, user._id, result.position));
  });

  router.patch('/projects/:id/members/:userId', async (req, res) => {
    const { who, projectId } = scope(req, res);
    authorize(who, 'members.manage');
    const { role } = parse(patchBody, req.body ?? {});
    const userId = req.params.userId;
    if (role === 'OWNER' || (await currentRole(projectId, userId)) === 'OWNER') {
      authorize(who, 'owners.manage');
    }
    const result = await projects.execute(
      projectId,
      { projectId, correlationId: who.requestId },
      ({ state }) => changeRole(state, userId, role),
    );
    res.json(await memberAfter(projectId, userId, result.position));
  });

  router.delete('/projects/:id/members/:userId', async (req, res) => {
    const { who, projectId } = scope(req, res);
    const userId = req.params.userId;
    if (who.userId !== userId) {
      authorize(who, 'members.manage');
      if ((await currentRole(projectId, userId)) === 'OWNER') authorize(who, 'owners.manage');
    }
    const result = await projects.execute(
      projectId,
      { projectId, correlationId: who.requestId },
      ({ state }) => removeMember(state, userId),
    );
    await deps.awaitViews(result.position);
    res.status(204).end();
  });

  return router;
}
