import { Anchor, Button, Card, Code, FileInput, List, Stack, Text } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type SubmitEvent, useCallback, useState } from 'react';
import { Link, useSearchParams } from 'react-router';

import { api, unwrap } from '../../api/client';
import { useProjectId } from '../../api/session';
import { ErrorAlert, fieldError } from '../../components/ErrorAlert';
import { PageHeader } from '../../components/PageHeader';
import { projectPath } from '../../shell/navigation';
import { JobProgress } from './JobProgress';

/** Largest CSV file the API accepts, bytes (spec part 8: 5 MB). */
const MAX_BYTES = 5 * 1024 * 1024;

/** Sends `file` to `POST /contacts/import` as the multipart form field `file`: the queued job. */
function uploadCsv(file: File) {
  return unwrap(
    api.POST('/contacts/import', {
      // The form's one field; the serializer below puts the file itself in it.
      body: { file: file.name },
      bodySerializer: () => {
        const form = new FormData();
        form.append('file', file, file.name);
        return form;
      },
    }),
  );
}

/**
 * `/p/:projectId/contacts/import`: uploads a CSV file of contacts (`POST /contacts/import`), then
 * shows the import's progress live (`GET /contacts/import/:jobId`, the job's id kept in the
 * address as `?job=`) and the rows that could not be imported.
 */
export default function ImportPage() {
  const projectId = useProjectId();
  const queryClient = useQueryClient();
  const [params, setParams] = useSearchParams();
  const jobId = params.get('job');
  const [file, setFile] = useState<File | null>(null);
  const upload = useMutation({
    mutationFn: uploadCsv,
    onSuccess: (job) => {
      setFile(null);
      setParams({ job: job.id });
    },
  });
  const submit = (event: SubmitEvent) => {
    event.preventDefault();
    if (file !== null) upload.mutate(file);
  };
  const finished = useCallback(() => {
    void queryClient.invalidateQueries({ queryKey: [projectId, 'contacts'] });
  }, [projectId, queryClient]);
  const tooLarge = file !== null && file.size > MAX_BYTES;
  return (
    <>
      <PageHeader
        title="Import contacts"
        description="Add or update many contacts at once from a CSV file."
        actions={
          <Anchor component={Link} to={projectPath(projectId, 'contacts')}>
            Back to the contacts
          </Anchor>
        }
      />
      {jobId === null ? (
        <Card withBorder maw={720}>
          <form onSubmit={submit}>
            <Stack>
              <Text size="sm">The file&apos;s first line names its columns:</Text>
              <List size="sm" spacing={4}>
                <List.Item>
                  <Code>email</Code> (required): the contact&apos;s address. A contact that already
                  exists is updated, not duplicated.
                </List.Item>
                <List.Item>
                  <Code>subscribed</Code> (optional): <Code>true</Code> or <Code>false</Code>. New
                  contacts are subscribed when it is empty or missing.
                </List.Item>
                <List.Item>
                  Any other column becomes a custom field of the contact, such as{' '}
                  <Code>firstName</Code> or <Code>plan</Code>.
                </List.Item>
              </List>
              <Text size="sm" c="dimmed">
                Columns may be separated by commas, semicolons or tabs. At most 5 MB per file; a row
                with a problem is reported and the others are imported.
              </Text>
              <FileInput
                label="CSV file"
                placeholder="Choose a file"
                accept=".csv,text/csv,text/plain"
                required
                clearable
                value={file}
                onChange={setFile}
                error={
                  tooLarge
                    ? 'This file is larger than 5 MB: split it into smaller files.'
                    : fieldError(upload.error, 'file')
                }
              />
              <ErrorAlert error={upload.error} title="The file was not imported" />
              <div>
                <Button
                  type="submit"
                  disabled={file === null || tooLarge}
                  loading={upload.isPending}
                >
                  Import
                </Button>
              </div>
            </Stack>
          </form>
        </Card>
      ) : (
        <Card withBorder>
          <Stack>
            <JobProgress
              family="import"
              jobId={jobId}
              label="Import progress"
              onFinished={finished}
            />
            <div>
              <Button variant="default" onClick={() => setParams({})}>
                Import another file
              </Button>
            </div>
          </Stack>
        </Card>
      )}
    </>
  );
}
