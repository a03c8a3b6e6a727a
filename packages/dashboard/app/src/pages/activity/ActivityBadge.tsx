import { Badge } from '@mantine/core';

import { ACTIVITY_TYPES, type ActivityType } from './describe';

/** The label of an activity type, as a coloured badge. */
export function ActivityBadge({ type }: { type: ActivityType }) {
  const shown = ACTIVITY_TYPES[type];
  return (
    <Badge color={shown.color} variant="light" radius="sm">
      {shown.label}
    </Badge>
  );
}
