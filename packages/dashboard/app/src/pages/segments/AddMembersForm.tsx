import { Button, Card, Checkbox, Group, Stack, Table, Text, Textarea, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';

import { api, type Schema, unwrap } from '../../api/client';
import { useProjectId } from '../../api/session';
import { ErrorAlert, fieldError } from '../../components/ErrorAlert';

/** Most addresses the API takes in one call. */
const MAX_EMAILS = 1000;

/** The outcome of one address, in words. */
const OUTCOMES = {
  added: 'Added',
  created: 'Created and added',
  already_member: 'Already a member',
  removed: 'Removed',
  not_member: 'Was not a member',
  not_found: 'No contact with this address',
} as const;

/** The addresses of pasted text: one per line or separated by commas, semicolons or spaces. */
export function parseEmails(text: string): string[] {
  const emails = text
    .split(/[\s,;]+/)
    .map((email) => email.trim())
    .filter((email) => email !== '');
  return [...new Set(emails)];
}

/**
 * Adds contacts to a static segment, or removes them, by pasted email addresses
 * (`POST`/`DELETE /segments/:id/members`), then shows what happened to each address.
 */
export function AddMembersForm({ segment }: { segment: Schema<'Segment'> }) {
  const projectId = useProjectId();
  const queryClient = useQueryClient();
  const [text, setText] = useState('');
  const [createMissing, setCreateMissing] = useState(false);
  const emails = parseEmails(text);
  const tooMany = emails.length > MAX_EMAILS;
  const onSuccess = () => queryClient.invalidateQueries({ queryKey: [projectId, 'segments'] });
  const add = useMutation({
    mutationFn: () =>
      unwrap(
        api.POST('/segments/{id}/members', {
          params: { path: { id: segment.id } },
          body: { emails, createMissing },
        }),
      ),
    onSuccess,
  });
  const remove = useMutation({
    mutationFn: () =>
      unwrap(
        api.DELETE('/segments/{id}/members', {
          params: { path: { id: segment.id } },
          body: { emails },
        }),
      ),
    onSuccess,
  });
  const last = add.submittedAt >= remove.submittedAt ? add : remove;
  const results = last.data?.results;
  return (
    <Card withBorder>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          remove.reset();
          add.mutate();
        }}
      >
        <Stack gap="sm">
          <Title order={2} size="h4">
            Add or remove contacts
          </Title>
          <Textarea
            label="Email addresses"
            description="One per line, or separated by commas."
            autosize
            minRows={3}
            maxRows={12}
            value={text}
            onChange={(event) => setText(event.currentTarget.value)}
            error={
              tooMany
                ? `At most ${MAX_EMAILS.toLocaleString()} addresses at a time`
                : fieldError(last.error, 'emails')
            }
          />
          <Checkbox
            label="Create contacts for addresses that are not in the project yet"
            checked={createMissing}
            onChange={(event) => setCreateMissing(event.currentTarget.checked)}
          />
          <Group>
            <Button type="submit" loading={add.isPending} disabled={emails.length === 0 || tooMany}>
              Add {emails.length === 0 ? '' : `${emails.length.toLocaleString()} `}to the segment
            </Button>
            <Button
              variant="default"
              loading={remove.isPending}
              disabled={emails.length === 0 || tooMany}
              onClick={() => {
                add.reset();
                remove.mutate();
              }}
            >
              Remove from the segment
            </Button>
          </Group>
          <ErrorAlert error={last.error} title="The addresses could not be changed" />
          {results !== undefined && (
            <div role="status">
              <Text size="sm" fw={600} mb={4}>
                {summary(last.data)}
              </Text>
              <Table aria-label="Result for each address" withTableBorder>
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>Email</Table.Th>
                    <Table.Th>Result</Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {results.map((result) => (
                    <Table.Tr key={result.email}>
                      <Table.Td>{result.email}</Table.Td>
                      <Table.Td>{OUTCOMES[result.status]}</Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </div>
          )}
        </Stack>
      </form>
    </Card>
  );
}

/** The counts of a members answer in one sentence. */
function summary(
  data:
    | { added: number; created: number; alreadyMembers: number; notFound: number }
    | { removed: number; notMembers: number; notFound: number }
    | undefined,
): string {
  if (data === undefined) return '';
  const parts =
    'added' in data
      ? [
          `${data.added} added`,
          `${data.created} created`,
          `${data.alreadyMembers} already members`,
          `${data.notFound} not found`,
        ]
      : [`${data.removed} removed`, `${data.notMembers} not members`, `${data.notFound} not found`];
  return `${parts.join(', ')}.`;
}
