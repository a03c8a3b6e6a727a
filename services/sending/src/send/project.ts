import { PROJECTS_VIEW, type ProjectViewDocument } from '@stamp/contracts';
import { ApiError } from '@stamp/http-kit';
import type { ViewStore } from '@stamp/platform';

const REASONS = {
  BOUNCE_RATE: 'its bounce rate passed the threshold',
  COMPLAINT_RATE: 'its complaint rate passed the threshold',
} as const;

/**
 * Refuses to send for a suspended project (project protection; the `projects` view of the
 * accounts service).
 * @throws ApiError 403 PROJECT_DISABLED naming the reason and where to read the rates.
 */
export async function assertProjectMaySend(views: ViewStore, projectId: string): Promise<void> {
  const project = await views
    .collection<ProjectViewDocument>(PROJECTS_VIEW)
    .findOne({ _id: projectId });
  const suspension = project?.suspension;
  if (suspension === undefined || suspension === null) return;
  throw new ApiError(
    403,
    'PROJECT_DISABLED',
    `Sending is suspended for this project since ${suspension.suspendedAt}: ${REASONS[suspension.reason]} ` +
      `(see GET /projects/${projectId}/security; reinstate with POST /projects/${projectId}/security/reinstate)`,
  );
}
