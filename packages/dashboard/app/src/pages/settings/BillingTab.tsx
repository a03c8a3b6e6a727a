import { Stack } from '@mantine/core';

import { CapsForm } from './CapsForm';
import { Consumption } from './Consumption';
import { Invoices } from './Invoices';
import { PlanActions } from './PlanActions';
import { useGuard } from './RoleNote';

/** `settings/billing`: usage against the caps, the caps, the plan and the invoices. */
export default function BillingTab() {
  const read = useGuard('billing.read', 'see and change billing');
  const manage = useGuard('billing.manage', 'change billing');
  return (
    <Stack>
      {read.allowed && <Consumption />}
      <CapsForm read={read} manage={manage} />
      <PlanActions manage={manage} />
      {read.allowed && <Invoices />}
    </Stack>
  );
}
