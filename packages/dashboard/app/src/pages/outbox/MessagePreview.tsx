import { Stack, Switch, Text } from '@mantine/core';
import type { Attachment } from 'postal-mime';
import { useMemo, useState } from 'react';

import { previewDocument } from './preview';

/**
 * The HTML of a message rendered in a sandboxed frame (no scripts, no same origin, no requests
 * unless remote images are switched on), or its plain text when it has no HTML.
 */
export function MessagePreview({
  html,
  text,
  attachments,
}: {
  html: string | undefined;
  text: string | undefined;
  attachments: readonly Attachment[];
}) {
  const [remoteImages, setRemoteImages] = useState(false);
  const preview = useMemo(
    () => (html === undefined ? undefined : previewDocument(html, attachments, remoteImages)),
    [html, attachments, remoteImages],
  );
  if (preview === undefined) {
    return (
      <Stack gap="xs">
        <Text size="sm" c="dimmed">
          This message has no HTML part; its text is shown.
        </Text>
        <Text
          component="pre"
          size="sm"
          p="md"
          style={{ whiteSpace: 'pre-wrap', border: '1px solid var(--mantine-color-gray-4)' }}
        >
          {text ?? '(empty message)'}
        </Text>
      </Stack>
    );
  }
  return (
    <Stack gap="xs">
      {(remoteImages || preview.blocked > 0) && (
        <Switch
          label="Load remote images"
          description={
            remoteImages
              ? 'Loading them counts as an open of the email.'
              : `${preview.blocked.toLocaleString()} remote ${preview.blocked === 1 ? 'file is' : 'files are'} not loaded: loading them would count as an open of the email.`
          }
          checked={remoteImages}
          onChange={(change) => setRemoteImages(change.currentTarget.checked)}
        />
      )}
      <iframe
        sandbox=""
        title="Message preview"
        srcDoc={preview.document}
        style={{
          width: '100%',
          height: 640,
          border: '1px solid var(--mantine-color-gray-4)',
          borderRadius: 'var(--mantine-radius-md)',
          background: 'white',
        }}
      />
    </Stack>
  );
}
