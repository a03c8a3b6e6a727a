import { TextInput } from '@mantine/core';

import { fieldError } from '../../../components/ErrorAlert';
import type { ConfigFieldsProps } from './types';

/** An EXIT step: why the run ends here (optional, shown on the execution). */
export function ExitFields({ draft, onChange, error }: ConfigFieldsProps<'EXIT'>) {
  return (
    <TextInput
      label="Reason"
      description="Optional: shown on the runs that end here."
      maxLength={1000}
      value={draft.reason}
      onChange={(event) => onChange({ ...draft, reason: event.currentTarget.value })}
      error={fieldError(error, 'config.reason')}
    />
  );
}
