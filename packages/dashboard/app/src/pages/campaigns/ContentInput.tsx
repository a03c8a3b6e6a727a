import { Anchor, Center, Loader, SegmentedControl, Select, Stack, Text } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { lazy, Suspense, useId, useState } from 'react';
import { Link } from 'react-router';

import { api, unwrap } from '../../api/client';
import { useProjectId } from '../../api/session';
import { ErrorAlert, fieldError } from '../../components/ErrorAlert';
import { projectPath } from '../../shell/navigation';
import type { CampaignDraft } from './draft';
import { useTemplateChoices } from './queries';

const CodeEditor = lazy(() => import('../templates/CodeEditor'));

/** Where the email of a campaign comes from: a template (copied in) or HTML written here. */
export type ContentSource = 'template' | 'html';

/**
 * The body of a campaign: picked from a template, whose subject, body and sender (when set) are
 * copied into the campaign, or written as HTML with Liquid in the code editor.
 */
export function ContentInput({
  draft,
  onChange,
  error,
  initialSource,
  completions,
}: {
  draft: CampaignDraft;
  onChange: (patch: Partial<CampaignDraft>) => void;
  error: unknown;
  initialSource: ContentSource;
  completions: readonly string[];
}) {
  const projectId = useProjectId();
  const queryClient = useQueryClient();
  const templates = useTemplateChoices();
  const [source, setSource] = useState<ContentSource>(initialSource);
  const [templateId, setTemplateId] = useState<string | null>(null);
  const [loading, setLoading] = useState(false);
  const [loadError, setLoadError] = useState<unknown>(null);
  const bodyError = fieldError(error, 'body');
  const sourceLabel = useId();

  const pick = async (id: string | null) => {
    setTemplateId(id);
    setLoadError(null);
    if (id === null) return;
    setLoading(true);
    try {
      const template = await queryClient.query({
        queryKey: [projectId, 'templates', id],
        queryFn: () => unwrap(api.GET('/templates/{id}', { params: { path: { id } } })),
      });
      onChange({
        subject: template.subject,
        body: template.body,
        ...(template.from === null || draft.from.trim() !== '' ? {} : { from: template.from }),
        ...(template.fromName === null || draft.fromName.trim() !== ''
          ? {}
          : { fromName: template.fromName }),
        ...(template.replyTo === null || draft.replyTo.trim() !== ''
          ? {}
          : { replyTo: template.replyTo }),
      });
    } catch (failure) {
      setLoadError(failure);
    } finally {
      setLoading(false);
    }
  };

  return (
    <Stack>
      <div>
        <Text size="sm" fw={500} id={sourceLabel}>
          Email content
        </Text>
        <SegmentedControl
          aria-labelledby={sourceLabel}
          value={source}
          onChange={(value) => setSource(value === 'html' ? 'html' : 'template')}
          data={[
            { value: 'template', label: 'From a template' },
            { value: 'html', label: 'Write HTML' },
          ]}
        />
      </div>
      {source === 'template' ? (
        <>
          <Select
            label="Template"
            placeholder="Choose a template"
            searchable
            data={(templates.data?.data ?? []).map((template) => ({
              value: template.id,
              label: template.name,
            }))}
            value={templateId}
            onChange={(id) => void pick(id)}
            nothingFoundMessage="No template has that name"
            rightSection={
              loading ? <Loader size="xs" aria-label="Loading the template" /> : undefined
            }
            description={
              templates.data?.total === 0 ? (
                <Text span size="xs">
                  This project has no template yet.{' '}
                  <Anchor component={Link} to={projectPath(projectId, 'templates/new')} size="xs">
                    Write one
                  </Anchor>{' '}
                  or write HTML here.
                </Text>
              ) : (
                'Its subject and email are copied into the campaign; changing the template later does not change the campaign.'
              )
            }
            error={bodyError}
          />
          <ErrorAlert error={templates.error} title="The templates could not be loaded" />
          <ErrorAlert error={loadError} title="The template could not be loaded" />
        </>
      ) : (
        <Suspense
          fallback={
            <Center p="md">
              <Loader size="sm" aria-label="Loading the editor" />
            </Center>
          }
        >
          <CodeEditor
            label="Body (HTML and Liquid)"
            description="Liquid tags such as {{ email }} fill in each recipient's details."
            value={draft.body}
            onChange={(body) => onChange({ body })}
            variables={completions}
            error={bodyError}
          />
        </Suspense>
      )}
    </Stack>
  );
}
