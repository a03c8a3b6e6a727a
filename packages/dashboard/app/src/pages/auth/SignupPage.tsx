import { Alert, Anchor, Button, Stack, Text, TextInput } from '@mantine/core';
import { PasswordField } from '../../components/PasswordField';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';

import { api, unwrap } from '../../api/client';
import { ErrorAlert, fieldError } from '../../components/ErrorAlert';
import { AuthLayout } from './AuthLayout';

/**
 * `/signup` (`?inviteToken=` from an invitation email joins the inviting project): name, email
 * and a password of at least 8 characters.
 */
export default function SignupPage() {
  const [params] = useSearchParams();
  const inviteToken = params.get('inviteToken') ?? undefined;
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const signup = useMutation({
    mutationFn: () =>
      unwrap(
        api.POST('/auth/signup', {
          body: {
            email,
            password,
            ...(name === '' ? {} : { name }),
            ...(inviteToken === undefined ? {} : { inviteToken }),
          },
        }),
      ),
    onSuccess: (user) => {
      // A new session: nothing cached under the previous one is kept.
      queryClient.clear();
      queryClient.setQueryData(['me'], user);
      void navigate('/');
    },
  });
  return (
    <AuthLayout title="Create your account">
      <form
        onSubmit={(event) => {
          event.preventDefault();
          signup.mutate();
        }}
      >
        <Stack>
          {inviteToken !== undefined && (
            <Alert color="blue" variant="light">
              You were invited to a project: sign up with the address the invitation was sent to.
            </Alert>
          )}
          <ErrorAlert error={signup.error} title="Could not sign up" />
          <TextInput
            label="Name"
            autoComplete="name"
            value={name}
            onChange={(event) => setName(event.currentTarget.value)}
            error={fieldError(signup.error, 'name')}
          />
          <TextInput
            label="Email"
            type="email"
            autoComplete="email"
            required
            value={email}
            onChange={(event) => setEmail(event.currentTarget.value)}
            error={fieldError(signup.error, 'email')}
          />
          <PasswordField
            label="Password"
            description="At least 8 characters"
            autoComplete="new-password"
            required
            minLength={8}
            value={password}
            onChange={(event) => setPassword(event.currentTarget.value)}
            error={fieldError(signup.error, 'password')}
          />
          <Button type="submit" loading={signup.isPending}>
            Sign up
          </Button>
          <Text size="sm">
            Already have an account?{' '}
            <Anchor component={Link} to="/login">
              Sign in
            </Anchor>
          </Text>
        </Stack>
      </form>
    </AuthLayout>
  );
}
