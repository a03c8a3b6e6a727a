import { Code, Loader, Table, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';

import { api, type Schema, unwrap } from '../../../api/client';
import { useProjectId } from '../../../api/session';
import { ErrorAlert } from '../../../components/ErrorAlert';
import { STEP_TYPES } from '../steps';

/** Most characters of a step's output shown. */
const MAX_OUTPUT = 600;

const shortened = (text: string): string =>
  text.length > MAX_OUTPUT ? `${text.slice(0, MAX_OUTPUT)}…` : text;

/**
 * The steps one run went through (`GET /workflows/:id/executions/:executionId`), in order;
 * read again when `version` (its status and number of steps, as the list last saw them) changes.
 */
export function ExecutionHistory({
  workflow,
  executionId,
  version,
}: {
  workflow: Schema<'Workflow'>;
  executionId: string;
  version: string;
}) {
  const projectId = useProjectId();
  const execution = useQuery({
    queryKey: [projectId, 'workflows', workflow.id, 'executions', 'one', executionId, version],
    placeholderData: (previous) => previous,
    queryFn: () =>
      unwrap(
        api.GET('/workflows/{id}/executions/{executionId}', {
          params: { path: { id: workflow.id, executionId } },
        }),
      ),
  });
  if (execution.isPending) return <Loader size="xs" aria-label="Loading the steps of the run" />;
  if (execution.isError) {
    return <ErrorAlert error={execution.error} title="The steps of the run could not be loaded" />;
  }
  const data = execution.data;
  const stepName = (id: string) =>
    workflow.steps.find((step) => step.id === id)?.name ?? 'A deleted step';
  return (
    <div>
      {data.error !== null && (
        <Text size="sm" c="red.8" mb={4}>
          Error: {data.error}
        </Text>
      )}
      {data.exitReason !== null && (
        <Text size="sm" mb={4}>
          Exit reason: {data.exitReason}
        </Text>
      )}
      {data.waitingFor !== null && (
        <Text size="sm" mb={4}>
          Waiting for “{data.waitingFor}”
          {data.nextRunAt === null ? '' : ` until ${new Date(data.nextRunAt).toLocaleString()}`}
        </Text>
      )}
      {data.waitingFor === null && data.nextRunAt !== null && (
        <Text size="sm" mb={4}>
          Goes on at {new Date(data.nextRunAt).toLocaleString()}
        </Text>
      )}
      {data.history.length === 0 ? (
        <Text size="sm">No step has finished yet.</Text>
      ) : (
        <Table aria-label="Steps of the run" withTableBorder>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Step</Table.Th>
              <Table.Th>Type</Table.Th>
              <Table.Th>Outcome</Table.Th>
              <Table.Th>Finished</Table.Th>
              <Table.Th>Output</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {data.history.map((entry, index) => (
              // A step may be visited more than once; its place in the history is its key.
              <Table.Tr key={`${entry.stepId}:${index}`}>
                <Table.Td>{stepName(entry.stepId)}</Table.Td>
                <Table.Td>{STEP_TYPES[entry.stepType].label}</Table.Td>
                <Table.Td>{entry.outcome}</Table.Td>
                <Table.Td>{new Date(entry.completedAt).toLocaleString()}</Table.Td>
                <Table.Td>
                  {entry.output === null ? (
                    '—'
                  ) : (
                    <Code
                      block
                      style={{ maxWidth: 360, whiteSpace: 'pre-wrap', wordBreak: 'break-all' }}
                    >
                      {shortened(JSON.stringify(entry.output, null, 2))}
                    </Code>
                  )}
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
    </div>
  );
}
