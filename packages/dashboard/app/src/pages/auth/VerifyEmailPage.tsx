import { Alert, Anchor, Loader, Stack } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { Link, useSearchParams } from 'react-router';

import { api, unwrap } from '../../api/client';
import { ErrorAlert } from '../../components/ErrorAlert';
import { AuthLayout } from './AuthLayout';

/** `/verify-email?token=` (the link of a verification email): confirms the address at once. */
export default function VerifyEmailPage() {
  const [params] = useSearchParams();
  const token = params.get('token') ?? '';
  const queryClient = useQueryClient();
  const verify = useMutation({
    mutationFn: () => unwrap(api.POST('/auth/verify-email', { body: { token } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['me'] }),
  });
  const { mutate } = verify;
  useEffect(() => {
    if (token !== '') mutate();
  }, [token, mutate]);
  return (
    <AuthLayout title="Verify your email">
      <Stack>
        {token === '' && (
          <Alert color="red">This page needs the link from the verification email.</Alert>
        )}
        {verify.isPending && <Loader aria-label="Verifying" />}
        <ErrorAlert error={verify.error} title="Could not verify the address" />
        {verify.isSuccess && (
          <Alert color="green" variant="light" role="status">
            Your email address is verified.
          </Alert>
        )}
        <Anchor component={Link} to="/">
          Go to the dashboard
        </Anchor>
      </Stack>
    </AuthLayout>
  );
}
