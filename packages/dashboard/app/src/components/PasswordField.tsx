import { PasswordInput, type PasswordInputProps } from '@mantine/core';

/** A password input whose show/hide button is in the tab order (Mantine leaves it out). */
export function PasswordField(props: PasswordInputProps) {
  return (
    <PasswordInput
      {...props}
      visibilityToggleButtonProps={{ tabIndex: 0, 'aria-label': 'Show or hide the password' }}
    />
  );
}
