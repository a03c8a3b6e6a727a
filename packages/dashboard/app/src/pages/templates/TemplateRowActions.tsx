import { Button, Group, Modal } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { useMutation, useQueryClient } from '@tanstack/react-query';

import { api, type Schema, unwrap } from '../../api/client';
import { useProjectId } from '../../api/session';
import { ConfirmButton } from '../../components/ConfirmButton';
import { notify } from './notify';
import { TemplateUsage } from './TemplateUsage';

/** Duplicates a template (`POST /templates/:id/duplicate`); refreshes the project's templates. */
export function useDuplicateTemplate() {
  const projectId = useProjectId();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) =>
      unwrap(api.POST('/templates/{id}/duplicate', { params: { path: { id } } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: [projectId, 'templates'] }),
  });
}

/** Deletes a template (`DELETE /templates/:id`); refreshes the project's templates. */
export function useDeleteTemplate() {
  const projectId = useProjectId();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => unwrap(api.DELETE('/templates/{id}', { params: { path: { id } } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: [projectId, 'templates'] }),
  });
}

/** Shows what went wrong with an action of a row, where the person is looking. */
function notifyError(action: string, error: unknown) {
  notify(error instanceof Error ? error.message : 'Something went wrong.', {
    title: `${action} did not work`,
    failed: true,
  });
}

/** A template row's actions: where it is used, duplicate, delete. */
export function TemplateRowActions({ template }: { template: Schema<'Template'> }) {
  const [usageOpened, usage] = useDisclosure(false);
  const duplicate = useDuplicateTemplate();
  const remove = useDeleteTemplate();
  return (
    <Group gap={4} justify="flex-end" wrap="nowrap">
      <Button
        variant="subtle"
        size="xs"
        onClick={usage.open}
        aria-label={`Usage of ${template.name}`}
      >
        Usage
      </Button>
      <Button
        variant="subtle"
        size="xs"
        loading={duplicate.isPending}
        aria-label={`Duplicate ${template.name}`}
        onClick={() =>
          duplicate.mutate(template.id, {
            onSuccess: (copy) => notify(`Copied as “${copy.name}”`),
            onError: (error) => notifyError('Duplicating', error),
          })
        }
      >
        Duplicate
      </Button>
      <ConfirmButton
        variant="subtle"
        color="red"
        size="xs"
        aria-label={`Delete ${template.name}`}
        loading={remove.isPending}
        title={`Delete “${template.name}”?`}
        message="The template is gone for good. Campaigns keep the copy of the email they already have; workflow steps that send it will fail."
        confirmLabel="Delete template"
        onConfirm={() =>
          remove.mutate(template.id, { onError: (error) => notifyError('Deleting', error) })
        }
      >
        Delete
      </ConfirmButton>
      <Modal opened={usageOpened} onClose={usage.close} title={`Where “${template.name}” is used`}>
        {usageOpened && <TemplateUsage templateId={template.id} />}
      </Modal>
    </Group>
  );
}
