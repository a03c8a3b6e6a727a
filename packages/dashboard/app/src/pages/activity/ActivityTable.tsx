import { Anchor, Table, Text } from '@mantine/core';
import { Link } from 'react-router';

import { projectPath } from '../../shell/navigation';
import { ActivityBadge } from './ActivityBadge';
import { activityDetail, type ActivityItem } from './describe';
import { formatDateTime } from './format';

/** Activity items in a table: when, what, which contact (a link to it) and the detail. */
export function ActivityTable({ projectId, items }: { projectId: string; items: ActivityItem[] }) {
  return (
    <Table.ScrollContainer minWidth={640}>
      <Table striped highlightOnHover verticalSpacing="xs" aria-label="Activity">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>When</Table.Th>
            <Table.Th>What</Table.Th>
            <Table.Th>Contact</Table.Th>
            <Table.Th>Details</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {items.map((item) => (
            <Table.Tr key={item.id}>
              <Table.Td style={{ whiteSpace: 'nowrap' }}>
                <Text size="sm" component="time" dateTime={item.createdAt}>
                  {formatDateTime(item.createdAt)}
                </Text>
              </Table.Td>
              <Table.Td>
                <ActivityBadge type={item.type} />
              </Table.Td>
              <Table.Td>
                {item.contact === null ? (
                  <Text size="sm" c="dimmed">
                    —
                  </Text>
                ) : (
                  <Anchor
                    component={Link}
                    size="sm"
                    to={projectPath(projectId, `contacts/${encodeURIComponent(item.contact.id)}`)}
                  >
                    {item.contact.email}
                  </Anchor>
                )}
              </Table.Td>
              <Table.Td>
                <Text size="sm" style={{ wordBreak: 'break-word' }}>
                  {activityDetail(item) ?? ''}
                </Text>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}
