import { Badge } from '@mantine/core';

import type { Schema } from '../../api/client';

/** A domain's or DNS record's verification status. */
export type VerificationStatus = Schema<'Domain'>['status'];

/**
 * Green for success, darker than the theme's darkest green: Mantine's light green badge (green-9
 * on green-1) falls short of the 4.5:1 contrast small text needs.
 */
export const SUCCESS_GREEN = '#1e6b30';

const LOOK: Record<VerificationStatus, { color: string; label: string }> = {
  PENDING: { color: 'yellow', label: 'Pending' },
  VERIFIED: { color: SUCCESS_GREEN, label: 'Verified' },
  FAILED: { color: 'red', label: 'Failed' },
};

/** The status of a domain or of one of its DNS records, as a coloured word. */
export function StatusBadge({ status }: { status: VerificationStatus }) {
  const look = LOOK[status];
  return (
    <Badge color={look.color} variant="light" miw="max-content">
      {look.label}
    </Badge>
  );
}
