import { Button, Card, Group, Stack, Text } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useCallback, useState } from 'react';

import { api, unwrap } from '../../api/client';
import { useProjectId } from '../../api/session';
import { ConfirmButton } from '../../components/ConfirmButton';
import { ErrorAlert } from '../../components/ErrorAlert';
import { JobProgress } from './JobProgress';

/** Most contacts of one bulk action (spec part 8). */
export const MAX_BULK = 1000;

type BulkKind = 'bulk-subscribe' | 'bulk-unsubscribe' | 'bulk-delete';

/** What each bulk action is called while it runs. */
const RUNNING_LABELS: Readonly<Record<BulkKind, string>> = {
  'bulk-subscribe': 'Subscribing',
  'bulk-unsubscribe': 'Unsubscribing',
  'bulk-delete': 'Deleting',
};

/** Queues the bulk action `kind` on `contactIds` (`POST /contacts/<kind>`): the job. */
function queueBulk(kind: BulkKind, contactIds: string[]) {
  const body = { contactIds };
  switch (kind) {
    case 'bulk-subscribe':
      return unwrap(api.POST('/contacts/bulk-subscribe', { body }));
    case 'bulk-unsubscribe':
      return unwrap(api.POST('/contacts/bulk-unsubscribe', { body }));
    case 'bulk-delete':
      return unwrap(api.POST('/contacts/bulk-delete', { body }));
  }
}

/**
 * The actions on the selected contacts (subscribe, unsubscribe, delete, up to 1,000 at a time):
 * each queues a job whose progress shows here until it ends; the list is then read again and the
 * selection cleared.
 */
export function BulkActions({
  selected,
  onClear,
}: {
  selected: ReadonlyMap<string, string>;
  onClear: () => void;
}) {
  const projectId = useProjectId();
  const queryClient = useQueryClient();
  const [job, setJob] = useState<{ id: string; label: string } | null>(null);
  const start = useMutation({
    mutationFn: (kind: BulkKind) => queueBulk(kind, [...selected.keys()]),
    onSuccess: (queued, kind) => {
      const count = selected.size;
      setJob({
        id: queued.id,
        label: `${RUNNING_LABELS[kind]} ${count.toLocaleString()} ${count === 1 ? 'contact' : 'contacts'}`,
      });
    },
  });
  const finished = useCallback(() => {
    onClear();
    void queryClient.invalidateQueries({ queryKey: [projectId, 'contacts'] });
    void queryClient.invalidateQueries({ queryKey: [projectId, 'activity'] });
  }, [onClear, projectId, queryClient]);

  if (selected.size === 0 && job === null) return null;
  const count = selected.size;
  const tooMany = count > MAX_BULK;
  const busy = start.isPending;
  return (
    <Card withBorder mb="md" aria-label="Selected contacts" component="section">
      <Stack gap="sm">
        {count > 0 && (
          <Group justify="space-between" wrap="wrap">
            <Text size="sm" fw={600}>
              {count.toLocaleString()} {count === 1 ? 'contact' : 'contacts'} selected
              {tooMany && ` (at most ${MAX_BULK.toLocaleString()} at a time)`}
            </Text>
            <Group gap="xs">
              <Button
                size="xs"
                variant="default"
                disabled={tooMany}
                loading={busy && start.variables === 'bulk-subscribe'}
                onClick={() => start.mutate('bulk-subscribe')}
              >
                Subscribe
              </Button>
              <Button
                size="xs"
                variant="default"
                disabled={tooMany}
                loading={busy && start.variables === 'bulk-unsubscribe'}
                onClick={() => start.mutate('bulk-unsubscribe')}
              >
                Unsubscribe
              </Button>
              <ConfirmButton
                size="xs"
                color="red"
                variant="light"
                disabled={tooMany}
                loading={busy && start.variables === 'bulk-delete'}
                title={`Delete ${count.toLocaleString()} ${count === 1 ? 'contact' : 'contacts'}?`}
                message="Their data, events and activity are erased. This cannot be undone."
                confirmLabel="Delete contacts"
                onConfirm={() => start.mutate('bulk-delete')}
              >
                Delete
              </ConfirmButton>
              <Button size="xs" variant="subtle" onClick={onClear}>
                Clear selection
              </Button>
            </Group>
          </Group>
        )}
        <ErrorAlert error={start.error} title="The action was not started" />
        {job !== null && (
          <>
            <JobProgress family="bulk" jobId={job.id} label={job.label} onFinished={finished} />
            <Group>
              <Button size="xs" variant="default" onClick={() => setJob(null)}>
                Dismiss
              </Button>
            </Group>
          </>
        )}
      </Stack>
    </Card>
  );
}
