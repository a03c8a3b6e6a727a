import { Center, Loader } from '@mantine/core';
import type { ReactNode } from 'react';
import { Navigate, useLocation } from 'react-router';

import { useMe } from '../api/session';
import { ErrorAlert } from '../components/ErrorAlert';

/** Shows `children` to a signed-in user; sends others to `/login`, back here afterwards. */
export function RequireSession({ children }: { children: ReactNode }) {
  const me = useMe();
  const location = useLocation();
  if (me.isPending) {
    return (
      <Center mih="100vh">
        <Loader aria-label="Loading" />
      </Center>
    );
  }
  if (me.isError) {
    return (
      <Center mih="100vh" p="md">
        <ErrorAlert error={me.error} title="Stamp could not be reached" />
      </Center>
    );
  }
  if (me.data === null) {
    const redirect = `${location.pathname}${location.search}`;
    return <Navigate to={`/login?${new URLSearchParams({ redirect }).toString()}`} replace />;
  }
  return children;
}
