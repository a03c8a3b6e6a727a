import { Alert, Badge, Group, Loader, Progress, Stack, Text } from '@mantine/core';
import { useEffect, useRef } from 'react';

import { ErrorAlert } from '../../components/ErrorAlert';
import { JobErrors } from './JobErrors';
import {
  type ContactJob,
  isFinished,
  type JobFamily,
  RESULT_KEYS,
  RESULT_LABELS,
  useContactJob,
} from './jobs';

/** The statuses of a job, in words, with their colour. */
const STATUSES: Readonly<Record<ContactJob['status'], { label: string; color: string }>> = {
  QUEUED: { label: 'Waiting to start', color: 'gray' },
  RUNNING: { label: 'In progress', color: 'blue' },
  COMPLETED: { label: 'Completed', color: 'cyan' },
  FAILED: { label: 'Failed', color: 'red' },
};

/**
 * The live progress of a contact job (read every half second until it ends): a progress bar
 * named `label`, the rows processed of all, the counters of its result, why it failed, and its
 * failed rows. `onFinished` is called once when it has ended.
 */
export function JobProgress({
  family,
  jobId,
  label,
  onFinished,
}: {
  family: JobFamily;
  jobId: string;
  label: string;
  onFinished?: (job: ContactJob) => void;
}) {
  const job = useContactJob(family, jobId);
  const reported = useRef<string | null>(null);
  useEffect(() => {
    const data = job.data;
    if (data === undefined || !isFinished(data) || reported.current === data.id) return;
    reported.current = data.id;
    onFinished?.(data);
  }, [job.data, onFinished]);

  if (job.isPending) return <Loader size="sm" aria-label={`Loading: ${label}`} />;
  if (job.isError) return <ErrorAlert error={job.error} title="The job's progress is unknown" />;
  const data = job.data;
  const status = STATUSES[data.status];
  const unit = data.type === 'import' ? 'rows' : 'contacts';
  return (
    <Stack gap="sm">
      <Group justify="space-between">
        <Text fw={600}>{label}</Text>
        <Badge color={status.color} variant="light">
          {status.label}
        </Badge>
      </Group>
      <Progress.Root size="xl">
        <Progress.Section
          value={data.progress}
          aria-label={label}
          color={data.status === 'FAILED' ? 'red' : data.status === 'COMPLETED' ? 'green' : 'blue'}
          animated={!isFinished(data)}
        />
      </Progress.Root>
      <Text size="sm" role="status">
        {data.processed.toLocaleString()} of {data.total.toLocaleString()} {unit} processed
        {data.status === 'COMPLETED' ? ': done.' : '.'}
      </Text>
      <Group gap="lg">
        {RESULT_KEYS[data.type].map((key) => (
          <Text size="sm" key={key}>
            <Text span fw={600} size="sm">
              {RESULT_LABELS[key] ?? key}:
            </Text>{' '}
            {(data.result[key] ?? 0).toLocaleString()}
          </Text>
        ))}
      </Group>
      {data.failedReason !== null && (
        <Alert color="red" variant="light" title="The job stopped" role="alert">
          {data.failedReason}
        </Alert>
      )}
      <JobErrors job={data} />
    </Stack>
  );
}
