import { NativeSelect, Radio, Stack, Text, TextInput } from '@mantine/core';

import { fieldError } from '../../../components/ErrorAlert';
import { useTemplateChoices } from '../queries';
import type { ConfigFieldsProps } from './types';

/** A SEND_EMAIL step: the template, and whether it goes to the contact or another address. */
export function SendEmailFields({ draft, onChange, error }: ConfigFieldsProps<'SEND_EMAIL'>) {
  const templates = useTemplateChoices();
  const list = templates.data ?? [];
  const known = list.some((template) => template.id === draft.templateId);
  return (
    <Stack gap="sm">
      <NativeSelect
        label="Template"
        required
        data={[
          {
            value: '',
            label: templates.isPending ? 'Loading the templates…' : 'Choose a template',
            disabled: true,
          },
          ...list.map((template) => ({
            value: template.id,
            label: `${template.name} (${template.type === 'MARKETING' ? 'marketing' : 'transactional'})`,
          })),
          ...(draft.templateId !== '' && !known && !templates.isPending
            ? [{ value: draft.templateId, label: `Missing template ${draft.templateId}` }]
            : []),
        ]}
        value={draft.templateId}
        onChange={(event) => onChange({ ...draft, templateId: event.currentTarget.value })}
        error={fieldError(error, 'config.templateId')}
      />
      {templates.data?.length === 0 && (
        <Text size="sm" c="dimmed">
          The project has no templates yet: create one on the Templates page first.
        </Text>
      )}
      <Radio.Group
        label="Send it to"
        value={draft.recipient}
        onChange={(value) =>
          onChange({ ...draft, recipient: value === 'CUSTOM' ? 'CUSTOM' : 'CONTACT' })
        }
      >
        <Stack gap={6} mt={6}>
          <Radio value="CONTACT" label="The contact" />
          <Radio value="CUSTOM" label="Another address (for example your team)" />
        </Stack>
      </Radio.Group>
      {draft.recipient === 'CUSTOM' && (
        <TextInput
          label="Address"
          type="email"
          required
          value={draft.customEmail}
          onChange={(event) => onChange({ ...draft, customEmail: event.currentTarget.value })}
          error={fieldError(error, 'config.recipient')}
        />
      )}
    </Stack>
  );
}
