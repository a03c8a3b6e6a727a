import { Badge } from '@mantine/core';

import type { Schema } from '../../api/client';
import { SUCCESS_GREEN } from '../domains/StatusBadge';

/** Whether a webhook endpoint receives events (turned off by a person or by Stamp). */
export function EnabledBadge({ endpoint }: { endpoint: Schema<'WebhookEndpoint'> }) {
  if (endpoint.enabled) {
    return (
      <Badge color={SUCCESS_GREEN} variant="light">
        Enabled
      </Badge>
    );
  }
  return endpoint.disabledReason === undefined ? (
    <Badge color="gray" variant="light">
      Disabled
    </Badge>
  ) : (
    <Badge color="red" variant="light">
      Disabled by Stamp
    </Badge>
  );
}
