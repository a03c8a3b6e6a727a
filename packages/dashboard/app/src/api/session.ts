/**
 * The signed-in user and their projects, cached by TanStack Query: `useMe` (null when signed
 * out) and `useProjects`, and the role check of the dashboard's buttons (`useCan`), which reads
 * the same permission table the API enforces (`@stamp/contracts/permissions`).
 */
import { type Action, may, type MemberRole } from '@stamp/contracts/permissions';
import { useQuery } from '@tanstack/react-query';
import { useParams } from 'react-router';

import { api, ApiError, type Schema, unwrap } from './client';

/** The signed-in user, or null when the session is missing or expired (401). */
export function useMe() {
  return useQuery({
    queryKey: ['me'],
    queryFn: async (): Promise<Schema<'User'> | null> => {
      try {
        return await unwrap(api.GET('/users/@me'));
      } catch (error) {
        if (error instanceof ApiError && error.status === 401) return null;
        throw error;
      }
    },
    staleTime: 60_000,
  });
}

/** The signed-in user's projects, oldest first. */
export function useProjects() {
  return useQuery({
    queryKey: ['projects'],
    queryFn: () => unwrap(api.GET('/users/@me/projects')),
    staleTime: 30_000,
  });
}

/** The project of the current page (`/p/:projectId/…`). */
export function useProjectId(): string {
  const { projectId } = useParams();
  if (projectId === undefined) throw new Error('useProjectId outside a project page');
  return projectId;
}

/** The signed-in user's role in the current project (null while loading or not a member). */
export function useRole(): MemberRole | null {
  const projectId = useProjectId();
  const projects = useProjects();
  return projects.data?.find((project) => project.id === projectId)?.role ?? null;
}

/** Whether the signed-in user may do `action` in the current project. */
export function useCan(action: Action): boolean {
  return may(useRole(), action);
}
