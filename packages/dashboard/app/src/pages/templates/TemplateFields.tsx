import { Group, Radio, SimpleGrid, Stack, TextInput } from '@mantine/core';

import { fieldError } from '../../components/ErrorAlert';
import CodeEditor from './CodeEditor';
import { senderError, type TemplateDraft } from './draft';
import { SenderAddressInput } from './SenderAddressInput';
import { TEMPLATE_TYPES } from './TemplateTypeBadge';

/** The inputs of a template: name, type, sender, subject and the HTML/Liquid body. */
export function TemplateFields({
  draft,
  onChange,
  error,
  completions,
}: {
  draft: TemplateDraft;
  onChange: (patch: Partial<TemplateDraft>) => void;
  /** The error of the last save, whose field messages show at their inputs. */
  error: unknown;
  /** Variable names the body editor offers. */
  completions: readonly string[];
}) {
  return (
    <Stack>
      <TextInput
        label="Name"
        description="For you and your team; recipients never see it."
        required
        maxLength={255}
        value={draft.name}
        onChange={(event) => onChange({ name: event.currentTarget.value })}
        error={fieldError(error, 'name')}
      />
      <Radio.Group
        label="Type"
        value={draft.type}
        onChange={(value) => {
          const type = TEMPLATE_TYPES.find((item) => item.value === value);
          if (type !== undefined) onChange({ type: type.value });
        }}
        error={fieldError(error, 'type')}
      >
        <Group mt={4} align="flex-start" grow>
          {TEMPLATE_TYPES.map((type) => (
            <Radio key={type.value} value={type.value} label={type.label} description={type.hint} />
          ))}
        </Group>
      </Radio.Group>
      <SimpleGrid cols={{ base: 1, sm: 2 }}>
        <SenderAddressInput
          label="From address"
          value={draft.from}
          onChange={(from) => onChange({ from })}
          error={senderError(error)}
        />
        <TextInput
          label="Sender name"
          description="Shown next to the address, for example your company."
          maxLength={255}
          value={draft.fromName}
          onChange={(event) => onChange({ fromName: event.currentTarget.value })}
          error={fieldError(error, 'fromName')}
        />
      </SimpleGrid>
      <TextInput
        label="Reply-to address"
        description="Where replies go, if not to the From address."
        type="email"
        value={draft.replyTo}
        onChange={(event) => onChange({ replyTo: event.currentTarget.value })}
        error={fieldError(error, 'replyTo')}
      />
      <TextInput
        label="Subject"
        description="Liquid works here too, for example {{ data.firstName }}."
        required
        maxLength={998}
        value={draft.subject}
        onChange={(event) => onChange({ subject: event.currentTarget.value })}
        error={fieldError(error, 'subject')}
      />
      <CodeEditor
        label="Body (HTML and Liquid)"
        description="Type {{ to fill in a variable. Tab moves on to the next field."
        value={draft.body}
        onChange={(body) => onChange({ body })}
        variables={completions}
        error={fieldError(error, 'body')}
      />
    </Stack>
  );
}
