import { EMAIL_STREAM_CATEGORY, entityIdOf } from '@stamp/contracts';
import {
  decisionAppend,
  type EventStore,
  type RecordedEvent,
  streamCategory,
  type ViewDocument,
  type ViewStore,
  withRevisionRetry,
} from '@stamp/platform';

import type { ProjectRecord } from '../accounts.ts';
import { type ProjectEvent, projectStreamId } from '../projects/events.ts';
import { decideProtection, decideReinstate, type WindowCounts, windowStart } from './decide.ts';

/** Consumer group of project protection (topic `email`). */
export const PROTECTION_GROUP = 'accounts-protection';

/** View of the emails protection counts: one document per sent email, no personal data. */
export const PROTECTION_EMAILS_VIEW = 'protectionEmails';

/** A sent email as protection counts it. `at`: ISO 8601 time it was sent or refused. */
export interface ProtectionEmail extends ViewDocument {
  projectId: string;
  at: string;
  bounced?: boolean;
  complained?: boolean;
}

/** What protection needs. */
export interface ProtectionDeps {
  store: EventStore;
  views: ViewStore;
  /** The project folded from its stream (null: no such project). */
  project(projectId: string): Promise<ProjectRecord | null>;
  now?: () => Date;
}

const emails = (views: ViewStore) => views.collection<ProtectionEmail>(PROTECTION_EMAILS_VIEW);

/** The counts of `projectId`'s window starting at `since`. */
export async function windowCounts(
  views: ViewStore,
  projectId: string,
  since: Date,
): Promise<WindowCounts> {
  const inWindow = { projectId, at: { $gte: since.toISOString() } };
  const [sends, bounces, complaints] = await Promise.all([
    emails(views).countDocuments(inWindow),
    emails(views).countDocuments({ ...inWindow, bounced: true }),
    emails(views).countDocuments({ ...inWindow, complained: true }),
  ]);
  return { sends, bounces, complaints };
}

/** Appends what `decide` makes of the project, at the revision read (decided again on a race). */
async function decideOnProject(
  deps: ProtectionDeps,
  projectId: string,
  correlationId: string,
  decide: (project: ProjectRecord) => Promise<ProjectEvent[]>,
): Promise<{ events: ProjectEvent[]; position: number }> {
  return withRevisionRetry(async () => {
    const project = await deps.project(projectId);
    if (project === null) return { events: [], position: 0 };
    const events = await decide(project);
    if (events.length === 0) return { events, position: 0 };
    const { position } = await deps.store.append([
      decisionAppend(projectStreamId(projectId), project.revision, events, {
        projectId,
        correlationId,
      }),
    ]);
    return { events, position };
  });
}

/**
 * The handler of group `accounts-protection`: counts each sent email (EmailSent, or an
 * EmailBounced at delivery) once, marks bounces and complaints, and after a bounce or a complaint
 * suspends the project when its window's rates pass the thresholds (see decideProtection).
 * Idempotent: documents are keyed by email id, and a suspended project is not suspended again.
 */
export async function protectOnFeedback(deps: ProtectionDeps, event: RecordedEvent): Promise<void> {
  if (streamCategory(event.streamId) !== EMAIL_STREAM_CATEGORY) return;
  const projectId = event.metadata.projectId;
  if (projectId === undefined) return;
  const mark =
    event.type === 'EmailSent'
      ? {}
      : event.type === 'EmailBounced'
        ? { bounced: true }
        : event.type === 'EmailComplained'
          ? { complained: true }
          : null;
  if (mark === null) return;
  await emails(deps.views).updateOne(
    { _id: entityIdOf(event.streamId) },
    { $set: { projectId, ...mark }, $min: { at: event.createdAt } },
    { upsert: true },
  );
  if (event.type === 'EmailSent') return;
  const now = deps.now?.() ?? new Date();
  await decideOnProject(
    deps,
    projectId,
    event.metadata.correlationId ?? event.id,
    async (project) =>
      decideProtection(
        project,
        await windowCounts(deps.views, projectId, windowStart(project, now)),
        now,
      ),
  );
}

/** Reinstates a suspended project (nothing when it is not); resolves with the log position. */
export async function reinstateProject(
  deps: ProtectionDeps,
  projectId: string,
  correlationId: string,
): Promise<{ reinstated: boolean; position: number }> {
  const now = deps.now?.() ?? new Date();
  const result = await decideOnProject(deps, projectId, correlationId, (project) =>
    Promise.resolve(decideReinstate(project, now)),
  );
  return { reinstated: result.events.length > 0, position: result.position };
}

/** The indexes of the window counts. */
export async function createProtectionIndexes(views: ViewStore): Promise<void> {
  await emails(views).createIndex({ projectId: 1, at: 1 });
}
