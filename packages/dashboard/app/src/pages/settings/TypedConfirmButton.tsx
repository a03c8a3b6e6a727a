import { Button, type ButtonProps, Group, Modal, Stack, Text, TextInput } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { type ReactNode, useState } from 'react';

/** Props of {@link TypedConfirmButton}. */
export interface TypedConfirmButtonProps extends ButtonProps {
  /** Title of the dialog. */
  title: string;
  /** What will happen, in words. */
  message: ReactNode;
  /** What the person types to confirm (for example the project's name). */
  expected: string;
  /** Label of the dialog's confirming button. */
  confirmLabel: string;
  onConfirm: () => void;
  'aria-describedby'?: string | undefined;
  children: ReactNode;
}

/**
 * A button for what cannot be undone: its dialog asks the person to type `expected` before the
 * confirming button is enabled.
 */
export function TypedConfirmButton({
  title,
  message,
  expected,
  confirmLabel,
  onConfirm,
  children,
  ...props
}: TypedConfirmButtonProps) {
  const [opened, { open, close }] = useDisclosure(false);
  const [typed, setTyped] = useState('');
  const shut = () => {
    setTyped('');
    close();
  };
  return (
    <>
      <Button color="red" {...props} onClick={open}>
        {children}
      </Button>
      <Modal opened={opened} onClose={shut} title={title} centered>
        <form
          onSubmit={(event) => {
            event.preventDefault();
            if (typed !== expected) return;
            shut();
            onConfirm();
          }}
        >
          <Stack>
            <Text size="sm">{message}</Text>
            <TextInput
              label={`Type ${expected} to confirm`}
              value={typed}
              onChange={(event) => setTyped(event.currentTarget.value)}
              autoComplete="off"
              data-autofocus
            />
            <Group justify="flex-end">
              <Button variant="default" onClick={shut}>
                Cancel
              </Button>
              <Button type="submit" color="red" disabled={typed !== expected}>
                {confirmLabel}
              </Button>
            </Group>
          </Stack>
        </form>
      </Modal>
    </>
  );
}
