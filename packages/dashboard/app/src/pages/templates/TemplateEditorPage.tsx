import { Center, Loader } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useParams } from 'react-router';

import { api, unwrap } from '../../api/client';
import { useProjectId } from '../../api/session';
import { ErrorAlert } from '../../components/ErrorAlert';
import { PageHeader } from '../../components/PageHeader';
import { EMPTY_DRAFT, draftOf } from './draft';
import { TemplateEditor } from './TemplateEditor';

/**
 * `/p/:projectId/templates/new` and `/p/:projectId/templates/:templateId`: the template editor,
 * empty for a new template or loaded with a saved one.
 */
export default function TemplateEditorPage() {
  const { templateId } = useParams();
  if (templateId === undefined) return <TemplateEditor key="new" initial={EMPTY_DRAFT} />;
  return <SavedTemplateEditor key={templateId} templateId={templateId} />;
}

/** The editor of a saved template, once it is loaded. */
function SavedTemplateEditor({ templateId }: { templateId: string }) {
  const projectId = useProjectId();
  const template = useQuery({
    queryKey: [projectId, 'templates', templateId],
    queryFn: () => unwrap(api.GET('/templates/{id}', { params: { path: { id: templateId } } })),
    // The editor keeps its own copy: a refetch would not change what is on screen.
    staleTime: Infinity,
  });
  if (template.isPending) {
    return (
      <>
        <PageHeader title="Template" />
        <Center p="xl">
          <Loader aria-label="Loading the template" />
        </Center>
      </>
    );
  }
  if (template.isError) {
    return (
      <>
        <PageHeader title="Template" />
        <ErrorAlert error={template.error} title="The template could not be loaded" />
      </>
    );
  }
  return <TemplateEditor template={template.data} initial={draftOf(template.data)} />;
}
