import { Button, CopyButton, VisuallyHidden } from '@mantine/core';

/**
 * A small button that copies `value` to the clipboard; `what` says what it copies (read by screen
 * readers after the visible "Copy", for example "the value of the DKIM record").
 */
export function CopyValue({ value, what }: { value: string; what: string }) {
  return (
    <CopyButton value={value}>
      {({ copied, copy }) => (
        <Button size="compact-xs" variant="light" onClick={copy}>
          {copied ? 'Copied' : 'Copy'}
          <VisuallyHidden> {what}</VisuallyHidden>
        </Button>
      )}
    </CopyButton>
  );
}
