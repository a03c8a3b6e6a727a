/** The pages of a project, in the order of the navigation (`/p/<project id>/<path>`). */
export const PROJECT_PAGES = [
  { path: '', label: 'Overview' },
  { path: 'contacts', label: 'Contacts' },
  { path: 'templates', label: 'Templates' },
  { path: 'campaigns', label: 'Campaigns' },
  { path: 'segments', label: 'Segments' },
  { path: 'workflows', label: 'Workflows' },
  { path: 'activity', label: 'Activity' },
  { path: 'analytics', label: 'Analytics' },
  { path: 'domains', label: 'Domains' },
  { path: 'outbox', label: 'Outbox' },
  { path: 'webhooks', label: 'Webhooks' },
  { path: 'settings', label: 'Settings' },
] as const;

/** The address of `page` (a path below the project, with or without a leading slash) of `projectId`. */
export function projectPath(projectId: string, page = ''): string {
  const rest = page.replace(/^\/+/, '');
  return `/p/${encodeURIComponent(projectId)}${rest === '' ? '' : `/${rest}`}`;
}
