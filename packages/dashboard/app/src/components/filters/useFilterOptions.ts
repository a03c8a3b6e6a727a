/**
 * What the filter builder suggests: the project's contact data fields (`GET /contacts/fields`),
 * its event names (`GET /events/names`) and its segments (`GET /segments`).
 */
import { useQuery } from '@tanstack/react-query';

import { api, type Schema, unwrap } from '../../api/client';
import { useProjectId } from '../../api/session';

/** A custom contact data field with the type most of its values have. */
export interface DataField {
  key: string;
  type: 'string' | 'number' | 'boolean' | 'date';
}

/** The suggestions of the filter builder, each empty while loading. */
export interface FilterOptions {
  dataFields: DataField[];
  eventNames: string[];
  segments: Schema<'Segment'>[];
  /** An error of one of the three calls, if any. */
  error: unknown;
}

/** Loads the suggestions of the filter builder (cached per project). */
export function useFilterOptions(): FilterOptions {
  const projectId = useProjectId();
  const fields = useQuery({
    queryKey: [projectId, 'contacts', 'fields'],
    queryFn: () => unwrap(api.GET('/contacts/fields')),
  });
  const events = useQuery({
    queryKey: [projectId, 'events', 'names'],
    queryFn: () => unwrap(api.GET('/events/names')),
  });
  const segments = useQuery({
    queryKey: [projectId, 'segments'],
    queryFn: () => unwrap(api.GET('/segments')),
  });
  return {
    dataFields: (fields.data?.fields ?? [])
      .filter((field) => !field.standard)
      .map((field) => ({ key: field.name, type: field.type })),
    eventNames: (events.data?.names ?? []).map((name) => name.name),
    segments: segments.data ?? [],
    error: fields.error ?? events.error ?? segments.error,
  };
}
