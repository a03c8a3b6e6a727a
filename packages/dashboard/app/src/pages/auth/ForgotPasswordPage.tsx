import { Alert, Anchor, Button, Stack, Text, TextInput } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';

import { api, unwrap } from '../../api/client';
import { ErrorAlert, fieldError } from '../../components/ErrorAlert';
import { AuthLayout } from './AuthLayout';

/** `/forgot-password`: asks for a reset link by email (the answer never tells whether the account exists). */
export default function ForgotPasswordPage() {
  const [email, setEmail] = useState('');
  const request = useMutation({
    mutationFn: () => unwrap(api.POST('/auth/request-password-reset', { body: { email } })),
  });
  return (
    <AuthLayout title="Reset your password">
      {request.isSuccess ? (
        <Alert color="green" variant="light" role="status">
          If an account uses {email}, a link to choose a new password is on its way.
        </Alert>
      ) : (
        <form
          onSubmit={(event) => {
            event.preventDefault();
            request.mutate();
          }}
        >
          <Stack>
            <ErrorAlert error={request.error} />
            <TextInput
              label="Email"
              type="email"
              autoComplete="email"
              required
              value={email}
              onChange={(event) => setEmail(event.currentTarget.value)}
              error={fieldError(request.error, 'email')}
            />
            <Button type="submit" loading={request.isPending}>
              Email me a link
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
