/**
 * The tracking mode of each project (API reference, "Open and click tracking"): its setting in
 * the accounts service's `projects` view (`PATCH /users/@me/projects/:id {tracking}`), else the
 * installation's default (`STAMP_TRACKING`). Settings are remembered for 5 s, so a busy project
 * costs one read per 5 s, and a change reaches delivery within that time.
 */
import { PROJECTS_VIEW, type ProjectViewDocument, type TrackingMode } from '@stamp/contracts';
import { BoundedCache, type ViewStore } from '@stamp/platform';

/** How long a project's setting is remembered, ms. */
export const TRACKING_SETTING_TTL_MS = 5_000;

/**
 * The tracking mode of a project: its own, else `fallback`.
 * @param now clock, epoch ms (tests).
 */
export function trackingModes(
  views: ViewStore,
  fallback: TrackingMode,
  now: () => number = Date.now,
): (projectId: string) => Promise<TrackingMode> {
  const known = new BoundedCache<string, { mode: TrackingMode; at: number }>(10_000);
  return async (projectId) => {
    const kept = known.get(projectId);
    if (kept !== undefined && now() - kept.at < TRACKING_SETTING_TTL_MS) return kept.mode;
    const project = await views
      .collection<ProjectViewDocument>(PROJECTS_VIEW)
      .findOne({ _id: projectId });
    const mode = project?.tracking ?? fallback;
    known.set(projectId, { mode, at: now() });
    return mode;
  };
}
