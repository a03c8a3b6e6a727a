import { Table, Text, Title } from '@mantine/core';

import type { ContactJob } from './jobs';

/**
 * The rows of a job that failed, with why: the line and email of an import's rows, the contact
 * of a bulk action's. The API keeps the first 1,000; `errorCount` counts them all.
 */
export function JobErrors({ job }: { job: ContactJob }) {
  if (job.errors.length === 0) return null;
  const isImport = job.type === 'import';
  return (
    <div>
      <Title order={2} size="h4" mb={4}>
        {isImport ? 'Rows not imported' : 'Contacts not changed'}
      </Title>
      <Text size="sm" c="dimmed" mb="xs">
        {job.errorCount > job.errors.length
          ? `The first ${job.errors.length.toLocaleString()} of ${job.errorCount.toLocaleString()} problems.`
          : `${job.errorCount.toLocaleString()} ${job.errorCount === 1 ? 'problem' : 'problems'}.`}
        {isImport &&
          ' Fix these rows in your file and import it again: rows already imported are updated, not duplicated.'}
      </Text>
      <Table.ScrollContainer minWidth={480} maxHeight={420}>
        <Table
          striped
          stickyHeader
          aria-label={isImport ? 'Rows not imported' : 'Contacts not changed'}
        >
          <Table.Thead>
            <Table.Tr>
              {isImport ? (
                <>
                  <Table.Th w={80}>Line</Table.Th>
                  <Table.Th>Email</Table.Th>
                </>
              ) : (
                <Table.Th>Contact</Table.Th>
              )}
              <Table.Th>Problem</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {job.errors.map((error, index) => (
              <Table.Tr key={`${error.line ?? error.id ?? ''}:${index}`}>
                {isImport ? (
                  <>
                    <Table.Td>{error.line ?? '—'}</Table.Td>
                    <Table.Td style={{ wordBreak: 'break-all' }}>{error.email ?? '—'}</Table.Td>
                  </>
                ) : (
                  <Table.Td style={{ wordBreak: 'break-all' }}>
                    {error.email ?? error.id ?? '—'}
                  </Table.Td>
                )}
                <Table.Td>{error.reason}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
    </div>
  );
}
