/**
 * Decisions on the members of a project (API reference, "Dashboard authentication and
 * members"), pure: adding a user, changing a role, removing a member, with the rules of the
 * permission table that depend on the project's members (the last OWNER stays).
 */
import type { MemberRole } from '@stamp/contracts';
import { conflict, notFound } from '@stamp/http-kit';

import { assertLiveProject, type ProjectEvent, type ProjectState } from '../projects/events.ts';

const memberNotFound = () => notFound('RESOURCE_NOT_FOUND', 'Member not found');

/** Whether `userId` is the project's only OWNER. */
const lastOwner = (state: ProjectState, userId: string): boolean =>
  state.members[userId] === 'OWNER' &&
  Object.values(state.members).filter((role) => role === 'OWNER').length === 1;

/**
 * Adds `userId` with `role`.
 * @throws ApiError 409 CONFLICT when the user already is a member.
 */
export function addMember(state: ProjectState, userId: string, role: MemberRole): ProjectEvent[] {
  assertLiveProject(state);
  if (state.members[userId] !== undefined) throw conflict('This user already is a member');
  return [{ type: 'ProjectMemberAdded', data: { userId, role } }];
}

/**
 * Gives `userId` the role `role` (nothing when it has it).
 * @throws ApiError 404 RESOURCE_NOT_FOUND for a user who is not a member; 409 CONFLICT when it
 *   would demote the last OWNER.
 */
export function changeRole(state: ProjectState, userId: string, role: MemberRole): ProjectEvent[] {
  const current = state.members[userId];
  if (current === undefined) throw memberNotFound();
  if (current === role) return [];
  if (lastOwner(state, userId)) {
    throw conflict('The last OWNER cannot be demoted: make another member OWNER first');
  }
  return [{ type: 'ProjectMemberRoleChanged', data: { userId, role } }];
}

/**
 * Removes `userId` (a member leaving, or removed).
 * @throws ApiError 404 RESOURCE_NOT_FOUND for a user who is not a member; 409 CONFLICT for the
 *   last OWNER.
 */
export function removeMember(state: ProjectState, userId: string): ProjectEvent[] {
  if (state.members[userId] === undefined) throw memberNotFound();
  if (lastOwner(state, userId)) {
    throw conflict('The last OWNER cannot leave: make another member OWNER first');
  }
  return [{ type: 'ProjectMemberRemoved', data: { userId } }];
}
