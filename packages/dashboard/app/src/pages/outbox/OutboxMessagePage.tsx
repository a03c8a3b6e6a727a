import { Anchor, Code, List, Loader, Table, Tabs, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import PostalMime, { type Attachment } from 'postal-mime';
import { Link, useParams } from 'react-router';

import { api, unwrap } from '../../api/client';
import { useProjectId } from '../../api/session';
import { ErrorAlert } from '../../components/ErrorAlert';
import { PageHeader } from '../../components/PageHeader';
import { projectPath } from '../../shell/navigation';
import { formatDateTime } from '../activity/format';
import { EmailStatus } from './EmailStatus';
import { MessagePreview } from './MessagePreview';

/** Characters of the raw message shown as its source (the rest is left out). */
const SOURCE_SHOWN = 200_000;

/** The size of an attachment in words ("12 KB"). */
function sizeOf(attachment: Attachment): string {
  const { content } = attachment;
  const bytes =
    typeof content === 'string'
      ? attachment.encoding === 'base64'
        ? Math.floor((content.replace(/=+$/, '').length * 3) / 4)
        : new TextEncoder().encode(content).length
      : content.byteLength;
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/**
 * `/p/:projectId/outbox/:emailId`: one captured message (`GET /outbox/:emailId`, its raw MIME
 * text parsed with postal-mime): its HTML rendered in a sandboxed frame, its text, headers,
 * attachments and source, and the email's delivery status (`GET /emails/:id`).
 */
export default function OutboxMessagePage() {
  const projectId = useProjectId();
  const emailId = useParams().emailId ?? '';
  const message = useQuery({
    queryKey: [projectId, 'outbox', 'message', emailId],
    queryFn: async () => {
      const captured = await unwrap(
        api.GET('/outbox/{emailId}', { params: { path: { emailId } } }),
      );
      const parsed = await PostalMime.parse(captured.raw, { attachmentEncoding: 'base64' });
      return { captured, parsed };
    },
    staleTime: Infinity,
  });
  const back = (
    <Anchor component={Link} to={projectPath(projectId, 'outbox')}>
      Back to the outbox
    </Anchor>
  );
  if (message.isPending) {
    return (
      <>
        <PageHeader title="Captured email" actions={back} />
        <Loader aria-label="Loading the email" />
      </>
    );
  }
  if (message.isError) {
    return (
      <>
        <PageHeader title="Captured email" actions={back} />
        <ErrorAlert error={message.error} title="The email could not be loaded" />
      </>
    );
  }
  const { captured, parsed } = message.data;
  const attachments = parsed.attachments.filter((item) => item.disposition !== 'inline');
  return (
    <>
      <PageHeader
        title={captured.subject === '' ? '(no subject)' : captured.subject}
        description={`To ${captured.to}, from ${captured.from}, captured ${formatDateTime(captured.capturedAt)}`}
        actions={back}
      />
      <EmailStatus emailId={emailId} />
      <Tabs defaultValue="message" keepMounted={false}>
        <Tabs.List mb="md">
          <Tabs.Tab value="message">Message</Tabs.Tab>
          <Tabs.Tab value="text">Plain text</Tabs.Tab>
          <Tabs.Tab value="headers">Headers</Tabs.Tab>
          <Tabs.Tab value="source">Source</Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="message">
          <MessagePreview html={parsed.html} text={parsed.text} attachments={parsed.attachments} />
        </Tabs.Panel>
        <Tabs.Panel value="text">
          <Text component="pre" size="sm" style={{ whiteSpace: 'pre-wrap' }}>
            {parsed.text ?? 'This message has no plain-text part.'}
          </Text>
        </Tabs.Panel>
        <Tabs.Panel value="headers">
          <Table.ScrollContainer minWidth={560}>
            <Table striped aria-label="Headers" layout="fixed">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th w={220}>Header</Table.Th>
                  <Table.Th>Value</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {parsed.headers.map((header, index) => (
                  <Table.Tr key={`${header.key}:${index}`}>
                    <Table.Td>
                      <Text size="sm" fw={600}>
                        {header.originalKey}
                      </Text>
                    </Table.Td>
                    <Table.Td>
                      <Text size="sm" ff="monospace" style={{ wordBreak: 'break-all' }}>
                        {header.value}
                      </Text>
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        </Tabs.Panel>
        <Tabs.Panel value="source">
          {captured.raw.length > SOURCE_SHOWN && (
            <Text size="sm" c="dimmed" mb="xs">
              The first {SOURCE_SHOWN.toLocaleString()} of {captured.raw.length.toLocaleString()}{' '}
              characters.
            </Text>
          )}
          <Code block style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-all' }}>
            {captured.raw.slice(0, SOURCE_SHOWN)}
          </Code>
        </Tabs.Panel>
      </Tabs>
      {attachments.length > 0 && (
        <>
          <Title order={2} size="h4" mt="lg" mb="xs">
            Attachments
          </Title>
          <List size="sm">
            {attachments.map((attachment, index) => (
              <List.Item key={`${attachment.filename ?? 'attachment'}:${index}`}>
                {attachment.filename ?? 'Unnamed attachment'} ({attachment.mimeType},{' '}
                {sizeOf(attachment)})
              </List.Item>
            ))}
          </List>
        </>
      )}
    </>
  );
}
