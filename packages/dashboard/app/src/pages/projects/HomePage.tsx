import { Center, Loader } from '@mantine/core';
import { Navigate } from 'react-router';

import { useProjects } from '../../api/session';
import { ErrorAlert } from '../../components/ErrorAlert';
import { projectPath } from '../../shell/navigation';
import { RequireSession } from '../../shell/RequireSession';

const LAST_PROJECT = 'stamp.lastProject';

/** Remembers the project last opened in this browser, so `/` returns to it. */
export function rememberProject(projectId: string): void {
  try {
    localStorage.setItem(LAST_PROJECT, projectId);
  } catch {
    // Storage may be off (private windows); `/` then opens the first project.
  }
}

function Home() {
  const projects = useProjects();
  if (projects.isPending) {
    return (
      <Center mih="100vh">
        <Loader aria-label="Loading projects" />
      </Center>
    );
  }
  if (projects.isError) return <ErrorAlert error={projects.error} />;
  const list = projects.data;
  if (list.length === 0) return <Navigate to="/projects/new" replace />;
  let last: string | null = null;
  try {
    last = localStorage.getItem(LAST_PROJECT);
  } catch {
    last = null;
  }
  const project = list.find((item) => item.id === last) ?? list[0];
  return <Navigate to={projectPath(project?.id ?? '')} replace />;
}

/** `/`: the project last opened, the first project, or the form to create one. */
export default function HomePage() {
  return (
    <RequireSession>
      <Home />
    </RequireSession>
  );
}
