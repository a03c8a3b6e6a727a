import { SimpleGrid, Stack, TextInput } from '@mantine/core';

import { fieldError } from '../../components/ErrorAlert';
import { senderError } from './draft';
import { SenderAddressInput } from './SenderAddressInput';

/** The sender of a template or a campaign. */
export interface Sender {
  from: string;
  fromName: string;
  replyTo: string;
}

/**
 * The From address (a verified domain's, suggested), the sender's name and the reply-to address,
 * with the API's errors on each (a 403 for an unverified domain lands on the From address).
 */
export function SenderFields({
  value,
  onChange,
  error,
  required = false,
}: {
  value: Sender;
  onChange: (patch: Partial<Sender>) => void;
  error: unknown;
  required?: boolean;
}) {
  return (
    <Stack>
      <SimpleGrid cols={{ base: 1, sm: 2 }}>
        <SenderAddressInput
          label="From address"
          required={required}
          value={value.from}
          onChange={(from) => onChange({ from })}
          error={senderError(error)}
        />
        <TextInput
          label="Sender name"
          description="Shown next to the address, for example your company."
          maxLength={255}
          value={value.fromName}
          onChange={(event) => onChange({ fromName: event.currentTarget.value })}
          error={fieldError(error, 'fromName')}
        />
      </SimpleGrid>
      <TextInput
        label="Reply-to address"
        description="Where replies go, if not to the From address."
        type="email"
        value={value.replyTo}
        onChange={(event) => onChange({ replyTo: event.currentTarget.value })}
        error={fieldError(error, 'replyTo')}
      />
    </Stack>
  );
}
