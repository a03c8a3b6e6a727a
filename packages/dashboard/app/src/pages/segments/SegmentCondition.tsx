import { Button, Card, Group, Stack, Text, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';

import { api, type Schema, unwrap } from '../../api/client';
import { useProjectId } from '../../api/session';
import { ErrorAlert } from '../../components/ErrorAlert';
import { withConditionPaths } from '../../components/filters/conditionErrors';
import { emptyCondition, FilterBuilder } from '../../components/filters/FilterBuilder';
import { LiveCount } from '../../components/filters/LiveCount';
import { useConditionCount } from '../../components/filters/useConditionCount';

/**
 * The condition of a dynamic segment, editable with the filter builder; while it differs from
 * the saved one, a live count of the contacts it would match.
 */
export function SegmentCondition({ segment }: { segment: Schema<'Segment'> }) {
  const projectId = useProjectId();
  const queryClient = useQueryClient();
  const saved = segment.condition ?? emptyCondition();
  const [draft, setDraft] = useState<Schema<'FilterConditionInput'>>(saved);
  const dirty = JSON.stringify(draft) !== JSON.stringify(saved);
  const count = useConditionCount(draft, dirty);
  const save = useMutation({
    mutationFn: () =>
      unwrap(
        api.PATCH('/segments/{id}', {
          params: { path: { id: segment.id } },
          body: { condition: draft },
        }),
      ),
    onSuccess: async (updated) => {
      queryClient.setQueryData([projectId, 'segments', segment.id], updated);
      setDraft(updated.condition ?? draft);
      await queryClient.invalidateQueries({ queryKey: [projectId, 'segments'] });
    },
  });
  return (
    <Card withBorder>
      <Stack gap="sm">
        <Title order={2} size="h4">
          Filters
        </Title>
        <FilterBuilder
          label="Who is in this segment"
          value={draft}
          onChange={setDraft}
          excludeSegmentId={segment.id}
        />
        {dirty ? (
          <LiveCount count={count} />
        ) : (
          <Text size="sm" fw={600} role="status">
            {segment.memberCount.toLocaleString()}{' '}
            {segment.memberCount === 1 ? 'contact matches' : 'contacts match'} (saved filters)
          </Text>
        )}
        <ErrorAlert error={withConditionPaths(save.error)} title="The filters could not be saved" />
        <Group>
          <Button onClick={() => save.mutate()} loading={save.isPending} disabled={!dirty}>
            Save filters
          </Button>
          <Button variant="default" onClick={() => setDraft(saved)} disabled={!dirty}>
            Undo changes
          </Button>
        </Group>
      </Stack>
    </Card>
  );
}
