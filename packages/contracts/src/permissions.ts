/**
 * Who may do what in a project (spec part 2, "Project"; API reference, "Dashboard authentication
 * and members"): the one table of guarded actions, enforced by the accounts service and read by
 * the dashboard to disable what a member may not do. Free of dependencies, so the browser loads it
 * as it is (`@stamp/contracts/permissions`).
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

/** A member's role in a project. */
export type MemberRole = 'OWNER' | 'ADMIN' | 'MEMBER';

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

/** Whether `role` (null: no role) may do `action`. */
export function may(role: MemberRole | null, action: Action): boolean {
  return role !== null && PERMISSIONS[action].includes(role);
}
