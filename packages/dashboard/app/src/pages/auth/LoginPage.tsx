import { Anchor, Button, Divider, Stack, Text, TextInput } from '@mantine/core';
import { PasswordField } from '../../components/PasswordField';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';

import { api, unwrap } from '../../api/client';
import { ErrorAlert, fieldError } from '../../components/ErrorAlert';
import { AuthLayout } from './AuthLayout';

/** Where to go after signing in: a path of this site only, never another origin. */
export function safeRedirect(value: string | null): string {
  return value !== null && value.startsWith('/') && !value.startsWith('//') ? value : '/';
}

/** `/login`: email and password, or a configured OpenID Connect provider. */
export default function LoginPage() {
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const redirect = safeRedirect(params.get('redirect'));
  const providers = useQuery({
    queryKey: ['oauth-config'],
    queryFn: () => unwrap(api.GET('/auth/oauth-config')),
    staleTime: Infinity,
  });
  const login = useMutation({
    mutationFn: () => unwrap(api.POST('/auth/login', { body: { email, password } })),
    onSuccess: (user) => {
      // A new session: nothing cached under the previous one is kept.
      queryClient.clear();
      queryClient.setQueryData(['me'], user);
      void navigate(redirect);
    },
  });
  return (
    <AuthLayout title="Sign in">
      <form
        onSubmit={(event) => {
          event.preventDefault();
          login.mutate();
        }}
      >
        <Stack>
          <ErrorAlert error={login.error} title="Could not sign in" />
          <TextInput
            label="Email"
            type="email"
            autoComplete="email"
            required
            value={email}
            onChange={(event) => setEmail(event.currentTarget.value)}
            error={fieldError(login.error, 'email')}
          />
          <PasswordField
            label="Password"
            autoComplete="current-password"
            required
            value={password}
            onChange={(event) => setPassword(event.currentTarget.value)}
            error={fieldError(login.error, 'password')}
          />
          <Button type="submit" loading={login.isPending}>
            Sign in
          </Button>
          {(providers.data?.data.providers ?? []).length > 0 && <Divider label="or" />}
          {(providers.data?.data.providers ?? []).map((provider) => (
            <Button
              key={provider.id}
              component="a"
              variant="default"
              href={`${provider.loginUrl}?${new URLSearchParams({ redirect }).toString()}`}
            >
              Continue with {provider.name}
            </Button>
          ))}
          <Text size="sm">
            <Anchor component={Link} to="/forgot-password">
              Forgot your password?
            </Anchor>
          </Text>
          <Text size="sm">
            No account yet?{' '}
            <Anchor component={Link} to="/signup">
              Sign up
            </Anchor>
          </Text>
        </Stack>
      </form>
    </AuthLayout>
  );
}
