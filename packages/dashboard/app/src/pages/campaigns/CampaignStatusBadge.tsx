import { Badge } from '@mantine/core';

import type { Schema } from '../../api/client';

/** A campaign's status. */
export type CampaignStatus = Schema<'Campaign'>['status'];

/** The statuses in words and colours, in the order a campaign goes through them. */
export const CAMPAIGN_STATUSES: readonly { value: CampaignStatus; label: string; color: string }[] =
  [
    { value: 'DRAFT', label: 'Draft', color: 'gray' },
    { value: 'SCHEDULED', label: 'Scheduled', color: 'blue' },
    { value: 'SENDING', label: 'Sending', color: 'orange' },
    { value: 'SENT', label: 'Sent', color: 'green' },
    { value: 'CANCELLED', label: 'Cancelled', color: 'red' },
  ];

/** A campaign's status as a coloured word. */
export function CampaignStatusBadge({ status }: { status: CampaignStatus }) {
  const look = CAMPAIGN_STATUSES.find((item) => item.value === status);
  return (
    <Badge variant="light" color={look?.color ?? 'gray'}>
      {look?.label ?? status}
    </Badge>
  );
}
