import { useProjectId, useProjects } from '../../api/session';

/** The current project as the signed-in user's list has it (undefined while loading). */
export function useProject() {
  const projectId = useProjectId();
  return useProjects().data?.find((project) => project.id === projectId);
}
