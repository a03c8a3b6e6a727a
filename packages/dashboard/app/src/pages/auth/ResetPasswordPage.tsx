import { Alert, Anchor, Button, Stack, Text } from '@mantine/core';
import { PasswordField } from '../../components/PasswordField';
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useSearchParams } from 'react-router';

import { api, unwrap } from '../../api/client';
import { ErrorAlert, fieldError } from '../../components/ErrorAlert';
import { AuthLayout } from './AuthLayout';

/** `/reset-password?token=` (the link of a password-reset email): a new password. */
export default function ResetPasswordPage() {
  const [params] = useSearchParams();
  const token = params.get('token') ?? '';
  const [password, setPassword] = useState('');
  const reset = useMutation({
    mutationFn: () => unwrap(api.POST('/auth/reset-password', { body: { token, password } })),
  });
  return (
    <AuthLayout title="Choose a new password">
      {reset.isSuccess ? (
        <Alert color="green" variant="light" role="status">
          Your password is changed.{' '}
          <Anchor component={Link} to="/login">
            Sign in
          </Anchor>
        </Alert>
      ) : (
        <form
          onSubmit={(event) => {
            event.preventDefault();
            reset.mutate();
          }}
        >
          <Stack>
            {token === '' && (
              <Alert color="red" variant="light">
                This page needs the link from the password-reset email.
              </Alert>
            )}
            <ErrorAlert error={reset.error} />
            <PasswordField
              label="New password"
              description="At least 8 characters"
              autoComplete="new-password"
              required
              minLength={8}
              value={password}
              onChange={(event) => setPassword(event.currentTarget.value)}
              error={fieldError(reset.error, 'password')}
            />
            <Button type="submit" loading={reset.isPending} disabled={token === ''}>
              Change password
            </Button>
          </Stack>
        </form>
      )}
      <Text size="sm" mt="md">
        <Anchor component={Link} to="/login">
          Back to sign in
        </Anchor>
      </Text>
    </AuthLayout>
  );
}
