import { Alert, Paper, Stack, Text } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useEffect, useState } from 'react';

import { describeLiquidError, renderLiquid } from './liquid';
import { previewScope, type PreviewRecipient } from './previewScope';

/** What the preview shows: the rendered subject and body, or the Liquid error of the source. */
interface Rendered {
  subject: string;
  html: string;
  error: string | null;
}

/**
 * The email as `recipient` would get it: `subject` and `body` rendered with the platform's Liquid
 * engine, the body in a sandboxed frame (no scripts, no forms, no navigation out). Renders a
 * moment after the last keystroke; a Liquid error keeps the last good rendering and says why.
 */
export function EmailPreview({
  subject,
  body,
  recipient,
  height = 520,
}: {
  subject: string;
  body: string;
  recipient: PreviewRecipient;
  height?: number;
}) {
  const [debouncedSubject] = useDebouncedValue(subject, 200);
  const [debouncedBody] = useDebouncedValue(body, 200);
  const [rendered, setRendered] = useState<Rendered>({ subject: '', html: '', error: null });
  useEffect(() => {
    let current = true;
    const scope = previewScope(recipient);
    Promise.all([
      renderLiquid(debouncedSubject, 'text', scope),
      renderLiquid(debouncedBody, 'html', scope),
    ]).then(
      ([renderedSubject, renderedHtml]) => {
        if (current) setRendered({ subject: renderedSubject, html: renderedHtml, error: null });
      },
      (error: unknown) => {
        if (current)
          setRendered((previous) => ({ ...previous, error: describeLiquidError(error) }));
      },
    );
    return () => {
      current = false;
    };
  }, [debouncedSubject, debouncedBody, recipient]);

  return (
    <Stack gap="xs">
      <Paper withBorder p="sm" radius="sm">
        <Text size="sm">
          <Text span fw={600}>
            To:
          </Text>{' '}
          {recipient.email}
        </Text>
        <Text size="sm" data-testid="preview-subject">
          <Text span fw={600}>
            Subject:
          </Text>{' '}
          {rendered.subject}
        </Text>
      </Paper>
      {rendered.error !== null && (
        <Alert color="orange" variant="light" title="The preview is out of date">
          {rendered.error}
        </Alert>
      )}
      <iframe
        title="Preview of the email"
        sandbox=""
        srcDoc={rendered.html}
        style={{
          width: '100%',
          height,
          border: '1px solid var(--mantine-color-gray-4)',
          borderRadius: 'var(--mantine-radius-sm)',
          background: 'white',
        }}
      />
    </Stack>
  );
}
