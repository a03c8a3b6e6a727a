import { Group, Radio, Stack, TextInput } from '@mantine/core';

import { fieldError } from '../../components/ErrorAlert';
import CodeEditor from './CodeEditor';
import type { TemplateDraft } from './draft';
import { SenderFields } from './SenderFields';
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
      <SenderFields value={draft} onChange={onChange} error={error} />
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
