/** The data of the workflow pages, cached under `[projectId, 'workflows', …]`. */
import { useQuery } from '@tanstack/react-query';

import { api, type Schema, unwrap } from '../../api/client';
import { useProjectId } from '../../api/session';

/** Every workflow of the project, newest first (`GET /workflows`). */
export function useWorkflows() {
  const projectId = useProjectId();
  return useQuery({
    queryKey: [projectId, 'workflows'],
    queryFn: () => unwrap(api.GET('/workflows')),
  });
}

/** One workflow with its steps and transitions (`GET /workflows/:id`). */
export function useWorkflow(id: string) {
  const projectId = useProjectId();
  return useQuery({
    queryKey: [projectId, 'workflows', id],
    queryFn: () => unwrap(api.GET('/workflows/{id}', { params: { path: { id } } })),
  });
}

/** Most template pages read for the template pickers (100 templates each). */
const MAX_TEMPLATE_PAGES = 10;

/** The project's templates by name, for the SEND_EMAIL step's picker. */
export function useTemplateChoices() {
  const projectId = useProjectId();
  return useQuery({
    queryKey: [projectId, 'templates', 'choices'],
    queryFn: async () => {
      const templates: Schema<'Template'>[] = [];
      for (let page = 1; page <= MAX_TEMPLATE_PAGES; page += 1) {
        const answer = await unwrap(
          api.GET('/templates', {
            params: { query: { page, pageSize: 100, sort: 'name', dir: 'asc' } },
          }),
        );
        templates.push(...answer.data);
        if (page >= answer.totalPages) break;
      }
      return templates;
    },
  });
}

/** The fields a CONDITION step can read (`GET /workflows/fields`). */
export function useConditionFields() {
  const projectId = useProjectId();
  return useQuery({
    queryKey: [projectId, 'workflows', 'fields'],
    queryFn: () => unwrap(api.GET('/workflows/fields')),
  });
}

/** The event names tracked in the project (`GET /events/names`). */
export function useEventNames() {
  const projectId = useProjectId();
  return useQuery({
    queryKey: [projectId, 'events', 'names'],
    queryFn: () => unwrap(api.GET('/events/names')),
    select: (answer) => answer.names.map((name) => name.name),
  });
}
