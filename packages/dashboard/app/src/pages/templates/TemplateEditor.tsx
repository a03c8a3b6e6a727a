import { Badge, Button, Card, Grid, Stack, Text } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useCallback, useState } from 'react';
import { useNavigate } from 'react-router';

import { api, type Schema, unwrap } from '../../api/client';
import { useProjectId } from '../../api/session';
import { ConfirmButton } from '../../components/ConfirmButton';
import { ErrorAlert } from '../../components/ErrorAlert';
import { PageHeader } from '../../components/PageHeader';
import { projectPath } from '../../shell/navigation';
import { createBodyOf, patchBodyOf, sameDraft, type TemplateDraft } from './draft';
import { EmailPreview } from './EmailPreview';
import { notify } from './notify';
import { type PreviewRecipient, SAMPLE_RECIPIENT } from './previewScope';
import { PreviewRecipientSelect } from './PreviewRecipientSelect';
import { SendTemplateTest } from './SendTemplateTest';
import { TemplateFields } from './TemplateFields';
import { useDeleteTemplate, useDuplicateTemplate } from './TemplateRowActions';
import { TemplateUsage } from './TemplateUsage';
import { useTemplateVariables } from './useTemplateVariables';
import { VariablesCard } from './VariablesCard';

/**
 * The editor of one template: its fields and body on the left, the live preview, the variables,
 * a test send and where it is used on the right. Without `template` it creates a new one.
 */
export function TemplateEditor({
  template,
  initial,
}: {
  template?: Schema<'Template'>;
  initial: TemplateDraft;
}) {
  const projectId = useProjectId();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [draft, setDraft] = useState(initial);
  const [saved, setSaved] = useState(initial);
  const [recipient, setRecipient] = useState<PreviewRecipient>(SAMPLE_RECIPIENT);
  const variables = useTemplateVariables();
  const duplicate = useDuplicateTemplate();
  const remove = useDeleteTemplate();
  const change = useCallback(
    (patch: Partial<TemplateDraft>) => setDraft((current) => ({ ...current, ...patch })),
    [],
  );

  const save = useMutation({
    mutationFn: (values: TemplateDraft) =>
      template === undefined
        ? unwrap(api.POST('/templates', { body: createBodyOf(values) }))
        : unwrap(
            api.PATCH('/templates/{id}', {
              params: { path: { id: template.id } },
              body: patchBodyOf(values),
            }),
          ),
    onSuccess: async (result, values) => {
      setSaved(values);
      queryClient.setQueryData([projectId, 'templates', result.id], result);
      await queryClient.invalidateQueries({ queryKey: [projectId, 'templates', 'list'] });
      notify(`“${result.name}” is saved`);
      if (template === undefined) {
        void navigate(projectPath(projectId, `templates/${result.id}`), { replace: true });
      }
    },
  });
  const dirty = !sameDraft(draft, saved);

  const actions = (
    <>
      {template !== undefined && (
        <>
          <Button
            variant="default"
            loading={duplicate.isPending}
            onClick={() =>
              duplicate.mutate(template.id, {
                onSuccess: (copy) => void navigate(projectPath(projectId, `templates/${copy.id}`)),
              })
            }
          >
            Duplicate
          </Button>
          <ConfirmButton
            variant="default"
            color="red"
            loading={remove.isPending}
            title={`Delete “${template.name}”?`}
            message="The template is gone for good. Campaigns keep the copy of the email they already have; workflow steps that send it will fail."
            confirmLabel="Delete template"
            onConfirm={() =>
              remove.mutate(template.id, {
                onSuccess: () => void navigate(projectPath(projectId, 'templates')),
              })
            }
          >
            Delete
          </ConfirmButton>
        </>
      )}
      {dirty && template !== undefined && (
        <Badge color="yellow" variant="light">
          Unsaved changes
        </Badge>
      )}
      <Button type="submit" form="template-form" loading={save.isPending}>
        {template === undefined ? 'Create template' : 'Save'}
      </Button>
    </>
  );

  return (
    <>
      <PageHeader
        title={template === undefined ? 'New template' : template.name}
        description="Write the email in HTML; Liquid tags such as {{ email }} fill in each recipient's details."
        actions={actions}
      />
      <Stack gap="sm" mb="md">
        <ErrorAlert error={duplicate.error} title="The template was not duplicated" />
        <ErrorAlert error={remove.error} title="The template was not deleted" />
      </Stack>
      <Grid gap="lg">
        <Grid.Col span={{ base: 12, lg: 6 }}>
          <form
            id="template-form"
            onSubmit={(event) => {
              event.preventDefault();
              save.mutate(draft);
            }}
          >
            <Stack>
              <ErrorAlert error={save.error} title="The template was not saved" />
              <TemplateFields
                draft={draft}
                onChange={change}
                error={save.error}
                completions={variables.completions}
              />
            </Stack>
          </form>
        </Grid.Col>
        <Grid.Col span={{ base: 12, lg: 6 }}>
          <Stack>
            <Card withBorder>
              <Text fw={600} component="h2" mb="sm">
                Preview
              </Text>
              <Stack gap="sm">
                <PreviewRecipientSelect value={recipient} onChange={setRecipient} />
                <EmailPreview subject={draft.subject} body={draft.body} recipient={recipient} />
              </Stack>
            </Card>
            <VariablesCard
              variables={variables.variables}
              isPending={variables.isPending}
              error={variables.error}
            />
            <SendTemplateTest draft={draft} />
            {template !== undefined && (
              <Card withBorder>
                <Text fw={600} component="h2" mb={4}>
                  Where it is used
                </Text>
                <TemplateUsage templateId={template.id} />
              </Card>
            )}
          </Stack>
        </Grid.Col>
      </Grid>
    </>
  );
}
