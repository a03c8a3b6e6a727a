import { Badge, Card, Group, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';

import { api, ApiError, type Schema, unwrap } from '../../api/client';
import { useProjectId } from '../../api/session';
import { ErrorAlert } from '../../components/ErrorAlert';
import { formatDateTime } from '../activity/format';

/** Colours of the email statuses. */
const STATUS_COLORS: Readonly<Record<Schema<'Email'>['status'], string>> = {
  QUEUED: 'gray',
  SENDING: 'blue',
  SENT: 'blue',
  DELIVERED: 'cyan',
  OPENED: 'grape',
  CLICKED: 'violet',
  BOUNCED: 'red',
  COMPLAINED: 'orange',
  FAILED: 'red',
};

/**
 * Where an email stands (`GET /emails/:id`): its status, when it was sent, its opens and clicks by
 * people (automated ones, such as mail scanners, apart). Nothing for mail that is not a project's
 * email (404).
 */
export function EmailStatus({ emailId }: { emailId: string }) {
  const projectId = useProjectId();
  const email = useQuery({
    queryKey: [projectId, 'emails', emailId],
    queryFn: () => unwrap(api.GET('/emails/{id}', { params: { path: { id: emailId } } })),
  });
  if (email.error instanceof ApiError && email.error.status === 404) return null;
  if (email.isError)
    return <ErrorAlert error={email.error} title="The email's status is unknown" />;
  if (email.data === undefined) return null;
  const { status, sentAt, opens, clicks, error } = email.data;
  return (
    <Card withBorder mb="md">
      <Group gap="lg" wrap="wrap">
        <Group gap="xs">
          <Text size="sm" fw={600}>
            Status
          </Text>
          <Badge color={STATUS_COLORS[status]} variant="light">
            {status.toLowerCase()}
          </Badge>
        </Group>
        {sentAt !== null && <Text size="sm">Sent {formatDateTime(sentAt)}</Text>}
        <Text size="sm">
          {opens.human.toLocaleString()} {opens.human === 1 ? 'open' : 'opens'}
          {opens.automated > 0 && ` (and ${opens.automated.toLocaleString()} automated)`}
        </Text>
        <Text size="sm">
          {clicks.human.toLocaleString()} {clicks.human === 1 ? 'click' : 'clicks'}
          {clicks.automated > 0 && ` (and ${clicks.automated.toLocaleString()} automated)`}
        </Text>
      </Group>
      {error !== null && (
        <Text size="sm" c="red.9" mt="xs">
          {error}
        </Text>
      )}
    </Card>
  );
}
