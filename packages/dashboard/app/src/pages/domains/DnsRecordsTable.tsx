import { Code, Group, Stack, Table, Text } from '@mantine/core';

import type { Schema } from '../../api/client';
import { CopyValue } from './CopyValue';
import { StatusBadge } from './StatusBadge';

type DnsRecord = Schema<'Domain'>['records'][number];

/** What each record is for, in words. */
const PURPOSES: Record<DnsRecord['purpose'], string> = {
  DKIM: 'Signs your mail (required to verify the domain)',
  SPF: 'Allows Stamp to send for the return path',
  RETURN_PATH: 'Receives bounces',
  DMARC: 'Tells receivers what to do with unsigned mail (recommended)',
  INBOUND: 'Receives replies and inbound mail',
};

/** The DNS records to publish for a domain, each with copy buttons and its last check's result. */
export function DnsRecordsTable({ domain }: { domain: Schema<'Domain'> }) {
  return (
    <Table.ScrollContainer minWidth={720}>
      <Table verticalSpacing="sm" aria-label={`DNS records of ${domain.domain}`}>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Type</Table.Th>
            <Table.Th>Name</Table.Th>
            <Table.Th>Value</Table.Th>
            <Table.Th>Purpose</Table.Th>
            <Table.Th>Status</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {domain.records.map((record) => (
            <Table.Tr key={`${record.purpose}:${record.type}:${record.name}`}>
              <Table.Td>{record.type}</Table.Td>
              <Table.Td maw={220}>
                <Stack gap={4} align="flex-start">
                  <Code style={{ wordBreak: 'break-all' }}>{record.name}</Code>
                  <CopyValue
                    value={record.name}
                    what={`the name of the ${record.purpose} record`}
                  />
                </Stack>
              </Table.Td>
              <Table.Td maw={360}>
                <Stack gap={4} align="flex-start">
                  <Code style={{ wordBreak: 'break-all' }}>{record.value}</Code>
                  <Group gap="xs">
                    <CopyValue
                      value={record.value}
                      what={`the value of the ${record.purpose} record`}
                    />
                    {record.priority !== undefined && (
                      <Text size="xs" c="dimmed">
                        Priority {record.priority}
                      </Text>
                    )}
                  </Group>
                </Stack>
              </Table.Td>
              <Table.Td>
                <Text size="sm" fw={600}>
                  {record.purpose.replace('_', ' ')}
                </Text>
                <Text size="xs" c="dimmed">
                  {PURPOSES[record.purpose]}
                </Text>
              </Table.Td>
              <Table.Td>
                <StatusBadge status={record.status} />
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}
