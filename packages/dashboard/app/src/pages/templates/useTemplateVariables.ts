import { useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';

import { api, unwrap } from '../../api/client';
import { useProjectId } from '../../api/session';
import { RESERVED_VARIABLES } from './previewScope';

/** A variable a template can use, with what it holds. */
export interface TemplateVariable {
  /** What goes between `{{` and `}}`. */
  name: string;
  description: string;
}

/**
 * The variables a template of this project can use: the ones every email has, then one per
 * contact data field the project's contacts hold (`GET /contacts/fields`), most common first.
 */
export function useTemplateVariables() {
  const projectId = useProjectId();
  const fields = useQuery({
    queryKey: [projectId, 'contacts', 'fields'],
    queryFn: () => unwrap(api.GET('/contacts/fields')),
  });
  const variables = useMemo((): TemplateVariable[] => {
    const custom = (fields.data?.fields ?? [])
      .filter((field) => !field.standard)
      .map((field) => ({
        name: `data.${field.name}`,
        description: `Contact data (${field.type}), on ${field.coverage}% of contacts`,
      }));
    return [...RESERVED_VARIABLES, ...custom];
  }, [fields.data]);
  /** Names offered by the editor's autocompletion (data keys also at the top level). */
  const completions = useMemo(
    () => [
      ...variables.map((variable) => variable.name),
      'data',
      ...variables
        .filter((variable) => variable.name.startsWith('data.'))
        .map((variable) => variable.name.slice('data.'.length)),
    ],
    [variables],
  );
  return { variables, completions, isPending: fields.isPending, error: fields.error };
}
