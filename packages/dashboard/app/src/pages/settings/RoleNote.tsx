import { Text } from '@mantine/core';
import { type Action, type MemberRole, PERMISSIONS } from '@stamp/contracts/permissions';
import { type ReactNode, useId } from 'react';

import { useCan } from '../../api/session';

const PLURALS: Record<MemberRole, string> = { OWNER: 'owners', ADMIN: 'admins', MEMBER: 'members' };

/** The roles that may take `action`, in words: "owners and admins". */
export function rolesWhoMay(action: Action): string {
  const roles = PERMISSIONS[action].map((role) => PLURALS[role]);
  return roles.length <= 1
    ? (roles[0] ?? 'nobody')
    : `${roles.slice(0, -1).join(', ')} and ${roles.at(-1) ?? ''}`;
}

/** What a guarded control needs: whether it is allowed, the note saying who may, and its id. */
export interface Guard {
  allowed: boolean;
  /** For the control's `aria-describedby` (undefined when allowed). */
  describedBy: string | undefined;
  /** "Only owners and admins can …", or null when allowed. */
  note: ReactNode;
}

/**
 * Whether the signed-in user's role may take `action` (`useCan`); when not, a short note naming
 * the roles that may `what` (for example "regenerate the keys"), to show next to the disabled control.
 */
export function useGuard(action: Action, what: string): Guard {
  const allowed = useCan(action);
  const id = useId();
  return {
    allowed,
    describedBy: allowed ? undefined : id,
    note: allowed ? null : (
      <Text id={id} size="xs" c="dimmed">
        Only {rolesWhoMay(action)} can {what}.
      </Text>
    ),
  };
}
