import { Button, type ButtonProps, Group, Modal, Text } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import type { ReactNode } from 'react';

/** Props of {@link ConfirmButton}. */
export interface ConfirmButtonProps extends ButtonProps {
  /** Title of the confirmation dialog. */
  title: string;
  /** What will happen, in words. */
  message: ReactNode;
  /** Label of the dialog's confirming button. */
  confirmLabel: string;
  onConfirm: () => void;
  children: ReactNode;
}

/** A button that asks for confirmation in a dialog before doing what cannot be undone. */
export function ConfirmButton({
  title,
  message,
  confirmLabel,
  onConfirm,
  children,
  ...props
}: ConfirmButtonProps) {
  const [opened, { open, close }] = useDisclosure(false);
  return (
    <>
      <Button {...props} onClick={open}>
        {children}
      </Button>
      <Modal opened={opened} onClose={close} title={title} centered>
        <Text size="sm">{message}</Text>
        <Group justify="flex-end" mt="lg">
          <Button variant="default" onClick={close}>
            Cancel
          </Button>
          <Button
            color={props.color ?? 'red'}
            onClick={() => {
              close();
              onConfirm();
            }}
          >
            {confirmLabel}
          </Button>
        </Group>
      </Modal>
    </>
  );
}
