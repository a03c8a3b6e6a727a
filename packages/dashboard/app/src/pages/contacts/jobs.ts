/**
 * Contact jobs (`POST /contacts/import` and the bulk actions answer a queued job): their status
 * polled until they end, and their counters in words.
 */
import { useQuery } from '@tanstack/react-query';

import { api, type Schema, unwrap } from '../../api/client';
import { useProjectId } from '../../api/session';

/** A CSV import or a bulk action on contacts. */
export type ContactJob = Schema<'ContactJob'>;

/** Which status route reads the job: imports and bulk actions have one each. */
export type JobFamily = 'import' | 'bulk';

/** How often a running job is read again, ms. */
const POLL_MS = 500;

/** Whether `job` has ended (it will not change any more). */
export function isFinished(job: Pick<ContactJob, 'status'>): boolean {
  return job.status === 'COMPLETED' || job.status === 'FAILED';
}

/** The counters of a job's result, in words. */
export const RESULT_LABELS: Readonly<Record<string, string>> = {
  created: 'Created',
  updated: 'Updated',
  unchanged: 'Unchanged',
  subscribed: 'Subscribed',
  unsubscribed: 'Unsubscribed',
  deleted: 'Deleted',
  notFound: 'Not found',
  failed: 'Failed',
};

/** The counters shown for each type of job, in order (all of them, zeros included). */
export const RESULT_KEYS: Readonly<Record<ContactJob['type'], readonly string[]>> = {
  import: ['created', 'updated', 'unchanged', 'failed'],
  'bulk-subscribe': ['subscribed', 'unchanged', 'notFound', 'failed'],
  'bulk-unsubscribe': ['unsubscribed', 'unchanged', 'notFound', 'failed'],
  'bulk-delete': ['deleted', 'notFound', 'failed'],
};

/** The job `jobId`, read again every half second until it has ended. */
export function useContactJob(family: JobFamily, jobId: string) {
  const projectId = useProjectId();
  return useQuery({
    queryKey: [projectId, 'contact-jobs', family, jobId],
    queryFn: () =>
      family === 'import'
        ? unwrap(api.GET('/contacts/import/{jobId}', { params: { path: { jobId } } }))
        : unwrap(api.GET('/contacts/bulk/{jobId}', { params: { path: { jobId } } })),
    refetchInterval: (query) => {
      const job = query.state.data;
      return job !== undefined && isFinished(job) ? false : POLL_MS;
    },
  });
}
