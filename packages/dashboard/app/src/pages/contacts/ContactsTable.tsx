import { Anchor, Badge, Checkbox, Table, Text } from '@mantine/core';
import { Link } from 'react-router';

import type { Schema } from '../../api/client';
import { projectPath } from '../../shell/navigation';
import { formatDateTime } from '../activity/format';

/**
 * Contacts in a table (email, subscription, when added), each a link to its page and a checkbox
 * to select it; the header's checkbox selects or clears every contact shown.
 */
export function ContactsTable({
  projectId,
  contacts,
  selected,
  onSelect,
}: {
  projectId: string;
  contacts: Schema<'Contact'>[];
  selected: ReadonlyMap<string, string>;
  onSelect: (change: { contacts: Schema<'Contact'>[]; selected: boolean }) => void;
}) {
  const shownSelected = contacts.filter((contact) => selected.has(contact.id)).length;
  const all = contacts.length > 0 && shownSelected === contacts.length;
  return (
    <Table.ScrollContainer minWidth={600}>
      <Table striped highlightOnHover aria-label="Contacts">
        <Table.Thead>
          <Table.Tr>
            <Table.Th w={44}>
              <Checkbox
                aria-label="Select every contact shown"
                checked={all}
                indeterminate={shownSelected > 0 && !all}
                onChange={() => onSelect({ contacts, selected: !all })}
              />
            </Table.Th>
            <Table.Th>Email</Table.Th>
            <Table.Th>Subscription</Table.Th>
            <Table.Th>Added</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {contacts.map((contact) => (
            <Table.Tr key={contact.id}>
              <Table.Td>
                <Checkbox
                  aria-label={`Select ${contact.email}`}
                  checked={selected.has(contact.id)}
                  onChange={(change) =>
                    onSelect({ contacts: [contact], selected: change.currentTarget.checked })
                  }
                />
              </Table.Td>
              <Table.Td>
                <Anchor
                  component={Link}
                  size="sm"
                  to={projectPath(projectId, `contacts/${encodeURIComponent(contact.id)}`)}
                  style={{ wordBreak: 'break-all' }}
                >
                  {contact.email}
                </Anchor>
              </Table.Td>
              <Table.Td>
                <Badge color={contact.subscribed ? 'blue' : 'gray'} variant="light">
                  {contact.subscribed ? 'Subscribed' : 'Unsubscribed'}
                </Badge>
              </Table.Td>
              <Table.Td style={{ whiteSpace: 'nowrap' }}>
                <Text size="sm" component="time" dateTime={contact.createdAt}>
                  {formatDateTime(contact.createdAt)}
                </Text>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}
