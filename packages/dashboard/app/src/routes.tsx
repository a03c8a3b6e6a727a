/**
 * The dashboard's pages. Pages outside a project are listed here; each feature folder of a
 * project's pages exports its routes from `pages/<feature>/routes.tsx` (paths relative to
 * `/p/:projectId`), gathered at build time, and loads its components on first visit.
 */
import type { RouteObject } from 'react-router';

import { NotFoundPage } from './pages/NotFoundPage';

/** A module `pages/<feature>/routes.tsx`. */
interface FeatureRoutes {
  routes: RouteObject[];
}

const features = import.meta.glob<FeatureRoutes>('./pages/*/routes.tsx', { eager: true });

/** The routes of a project's pages, from every feature folder. */
export const projectRoutes: RouteObject[] = Object.values(features).flatMap(
  (feature) => feature.routes,
);

/** The whole route tree. */
export const routes: RouteObject[] = [
  {
    path: '/',
    lazy: async () => ({ Component: (await import('./pages/projects/HomePage')).default }),
  },
  {
    path: '/login',
    lazy: async () => ({ Component: (await import('./pages/auth/LoginPage')).default }),
  },
  {
    path: '/signup',
    lazy: async () => ({ Component: (await import('./pages/auth/SignupPage')).default }),
  },
  {
    path: '/forgot-password',
    lazy: async () => ({ Component: (await import('./pages/auth/ForgotPasswordPage')).default }),
  },
  {
    path: '/reset-password',
    lazy: async () => ({ Component: (await import('./pages/auth/ResetPasswordPage')).default }),
  },
  {
    path: '/verify-email',
    lazy: async () => ({ Component: (await import('./pages/auth/VerifyEmailPage')).default }),
  },
  {
    path: '/projects/new',
    lazy: async () => ({ Component: (await import('./pages/projects/NewProjectPage')).default }),
  },
  {
    path: '/p/:projectId',
    lazy: async () => ({ Component: (await import('./shell/ProjectShell')).default }),
    children: [...projectRoutes, { path: '*', Component: NotFoundPage }],
  },
  { path: '*', Component: NotFoundPage },
];
