/** The dashboard's entry: the component library's theme, the data cache, notifications and the router. */
import '@mantine/core/styles.css';
import '@mantine/notifications/styles.css';

import {
  createTheme,
  type CSSVariablesResolver,
  MantineProvider,
  Modal,
  Notification,
} from '@mantine/core';
import { Notifications } from '@mantine/notifications';
import { MutationCache, QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { createBrowserRouter, RouterProvider } from 'react-router';

import { ApiError } from './api/client';
import { routes } from './routes';

const theme = createTheme({
  primaryColor: 'blue',
  defaultRadius: 'md',
  primaryShade: 8,
  // Close buttons carry an icon only: give them a name screen readers can say.
  components: {
    Modal: Modal.extend({ defaultProps: { closeButtonProps: { 'aria-label': 'Close' } } }),
    Notification: Notification.extend({
      defaultProps: { closeButtonProps: { 'aria-label': 'Dismiss the notification' } },
    }),
  },
});

/** Secondary text and placeholders dark enough for WCAG AA contrast (4.5:1) on white. */
const contrast: CSSVariablesResolver = () => ({
  variables: {},
  light: {
    '--mantine-color-dimmed': 'var(--mantine-color-gray-7)',
    '--mantine-color-placeholder': 'var(--mantine-color-gray-7)',
    // Field errors (the message and the input's text): Mantine's red 6 is 3.3:1 on white.
    '--mantine-color-error': 'var(--mantine-color-red-9)',
    // Text on light yellow, orange and green alerts and badges: dark enough on their pale
    // background.
    '--mantine-color-yellow-light-color': '#6b4400',
    '--mantine-color-orange-light-color': '#8a2f00',
    '--mantine-color-green-light-color': '#1b5e2a',
    // Links and light buttons of the primary colour, also when hovered (4.5:1 at least).
    '--mantine-color-blue-light-color': 'var(--mantine-color-blue-9)',
    '--mantine-primary-color-light-color': 'var(--mantine-color-blue-9)',
  },
  dark: {},
});

const router = createBrowserRouter(routes);

const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      staleTime: 5_000,
      // A 4xx will not change on its own; other failures are tried twice more.
      retry: (failures, error) =>
        !(error instanceof ApiError && error.status >= 400 && error.status < 500) && failures < 2,
    },
  },
  mutationCache: new MutationCache({
    onError: (error) => {
      // An expired session sends the person to sign in again, back where they were.
      if (
        error instanceof ApiError &&
        error.status === 401 &&
        window.location.pathname.startsWith('/p/')
      ) {
        const redirect = `${window.location.pathname}${window.location.search}`;
        window.location.assign(`/login?${new URLSearchParams({ redirect }).toString()}`);
      }
    },
  }),
});

const root = document.getElementById('root');
if (root === null) throw new Error('The page has no #root element');
createRoot(root).render(
  <StrictMode>
    <MantineProvider theme={theme} cssVariablesResolver={contrast}>
      <Notifications />
      <QueryClientProvider client={queryClient}>
        <RouterProvider router={router} />
      </QueryClientProvider>
    </MantineProvider>
  </StrictMode>,
);
