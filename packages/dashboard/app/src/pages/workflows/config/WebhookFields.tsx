import {
  Button,
  CloseButton,
  Group,
  NativeSelect,
  Stack,
  Text,
  Textarea,
  TextInput,
} from '@mantine/core';

import { fieldError } from '../../../components/ErrorAlert';
import type { StepDraft } from '../steps';
import type { ConfigFieldsProps } from './types';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

type Headers = Extract<StepDraft, { type: 'WEBHOOK' }>['headers'];

/**
 * A WEBHOOK step: the address, the method, headers, and a body; the body and header values may
 * use Liquid (`{{ contact.email }}`, `{{ data.plan }}`, `{{ event.total }}`).
 */
export function WebhookFields({ draft, onChange, error }: ConfigFieldsProps<'WEBHOOK'>) {
  const setHeaders = (headers: Headers) => onChange({ ...draft, headers });
  return (
    <Stack gap="sm">
      <TextInput
        label="URL"
        required
        type="url"
        placeholder="https://example.com/hooks/stamp"
        value={draft.url}
        onChange={(event) => onChange({ ...draft, url: event.currentTarget.value })}
        error={fieldError(error, 'config.url')}
      />
      <NativeSelect
        label="Method"
        data={[...METHODS]}
        value={draft.method}
        onChange={(event) => {
          const method = METHODS.find((item) => item === event.currentTarget.value);
          if (method !== undefined) onChange({ ...draft, method });
        }}
      />
      <Stack gap={6}>
        <Text size="sm" fw={500}>
          Headers
        </Text>
        {draft.headers.map((header, index) => (
          // Headers have no identity of their own; their place is their key.
          <Group key={index} gap="xs" align="flex-end" wrap="nowrap">
            <TextInput
              label={`Header ${index + 1} name`}
              value={header.name}
              onChange={(event) =>
                setHeaders(
                  draft.headers.map((item, i) =>
                    i === index ? { ...item, name: event.currentTarget.value } : item,
                  ),
                )
              }
              error={fieldError(error, 'config.headers')}
            />
            <TextInput
              label={`Header ${index + 1} value`}
              value={header.value}
              onChange={(event) =>
                setHeaders(
                  draft.headers.map((item, i) =>
                    i === index ? { ...item, value: event.currentTarget.value } : item,
                  ),
                )
              }
            />
            <CloseButton
              aria-label={`Remove header ${index + 1}`}
              mb={4}
              onClick={() => setHeaders(draft.headers.filter((_, i) => i !== index))}
            />
          </Group>
        ))}
        <Button
          size="compact-sm"
          variant="default"
          style={{ alignSelf: 'flex-start' }}
          onClick={() => setHeaders([...draft.headers, { name: '', value: '' }])}
        >
          Add header
        </Button>
      </Stack>
      <Textarea
        label="Body"
        description="Optional. Liquid works here: {{ contact.email }}, {{ data.plan }}, {{ event.total }}."
        autosize
        minRows={3}
        maxRows={12}
        ff="monospace"
        value={draft.body}
        onChange={(event) => onChange({ ...draft, body: event.currentTarget.value })}
        error={fieldError(error, 'config.body')}
      />
    </Stack>
  );
}
