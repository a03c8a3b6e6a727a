import {
  applyAtRevision,
  type EventHandler,
  type RecordedEvent,
  type ViewCollection,
  type ViewDocument,
  type ViewStore,
} from '@stamp/platform';

import {
  type KeyKind,
  type MemberRole,
  PROJECTS_VIEW as PROJECTS_VIEW_NAME,
  type TrackingMode,
} from '@stamp/contracts';

import { PROJECT_EVENT_TYPES, type ProjectEvent, type SuspensionData } from './events.ts';

/** Consumer group of the accounts projection. */
export const KEYS_GROUP = 'accounts-keys';
/** View of the current API keys, one document per key hash. */
export const API_KEYS_VIEW = 'api_keys';
/** View of the projects. */
export const PROJECTS_VIEW = PROJECTS_VIEW_NAME;
/** View of the members of projects, one document per project and user. */
export const MEMBERS_VIEW = 'project_members';

/** A member of a project (`_id`: `<projectId>:<userId>`). */
export interface MemberView extends ViewDocument {
  projectId: string;
  userId: string;
  role: MemberRole;
  /** False once the user left or was removed (the document stays, for the revision guard). */
  active: boolean;
  /** ISO 8601 time the user joined. */
  createdAt: string;
  revision: number;
}

/** The id of the member document of `userId` in `projectId`. */
export const memberId = (projectId: string, userId: string): string => `${projectId}:${userId}`;

/** A current API key: `_id` is the SHA-256 hex hash of the key. */
export interface ApiKeyView extends ViewDocument {
  projectId: string;
  kind: KeyKind;
  /** Revision of the project stream's ProjectKeysIssued that issued the key. */
  revision: number;
}

/** A project as listed to its users. Dates are ISO 8601 strings. */
export interface ProjectView extends ViewDocument {
  name: string;
  ownerId: string;
  createdAt: string;
  publicKeyHint: string | null;
  secretKeyHint: string | null;
  /** The project's tracking mode; null or absent: the installation's default. */
  tracking?: TrackingMode | null;
  /** True once deleted. */
  deleted?: boolean;
  /** When its data was last wiped (ProjectReset), ISO 8601; absent when never. */
  resetAt?: string;
  /** The suspension in force (project protection), or null; absent when never suspended. */
  suspension?: SuspensionData | null;
  /** Revision of the project stream this document reflects. */
  revision: number;
}

/**
 * The handler of consumer group `accounts-keys` (topic `project`): fills `projects`,
 * `api_keys` and `project_members`. Idempotent: every write is guarded by the stream revision, so a replayed or
 * duplicated event changes nothing; on ProjectKeysIssued the project's older key documents are
 * removed and the new ones added, unless a newer pair is already in the view.
 */
export function projectsProjection(views: ViewStore): EventHandler {
  const keys: ViewCollection<ApiKeyView> = views.collection<ApiKeyView>(API_KEYS_VIEW);
  const projects: ViewCollection<ProjectView> = views.collection<ProjectView>(PROJECTS_VIEW);
  const members = views.collection<MemberView>(MEMBERS_VIEW);
  /** Makes `userId` a member of the project with `role` (at the event's revision). */
  const member = (projectId: string, userId: string, role: MemberRole, recorded: RecordedEvent) =>
    applyAtRevision(
      members,
      memberId(projectId, userId),
      recorded.revision,
      { $set: { projectId, userId, role, active: true, createdAt: recorded.createdAt } },
      true,
    );
  return async (recorded: RecordedEvent) => {
    if (!PROJECT_EVENT_TYPES.includes(recorded.type)) return;
    const event = { type: recorded.type, data: recorded.data } as ProjectEvent;
    const projectId = recorded.streamId.slice('project-'.length);
    const revision = recorded.revision;
    switch (event.type) {
      case 'ProjectCreated':
        await applyAtRevision(
          projects,
          projectId,
          revision,
          {
            $set: {
              name: event.data.name,
              ownerId: event.data.ownerId,
              createdAt: recorded.createdAt,
              publicKeyHint: null,
              secretKeyHint: null,
            },
          },
          true,
        );
        await member(projectId, event.data.ownerId, 'OWNER', recorded);
        return;
      case 'ProjectMemberAdded':
        await member(projectId, event.data.userId, event.data.role, recorded);
        return;
      case 'ProjectDeleted':
        // Its keys stop resolving and its members lose it; nothing follows a deletion.
        await keys.deleteMany({ projectId });
        await members.updateMany({ projectId }, { $set: { active: false } });
        await applyAtRevision(projects, projectId, revision, { $set: { deleted: true } }, false);
        return;
      case 'ProjectReset':
        await applyAtRevision(
          projects,
          projectId,
          revision,
          { $set: { resetAt: event.data.resetAt } },
          false,
        );
        return;
      case 'ProjectSettingsChanged':
        await applyAtRevision(
          projects,
          projectId,
          revision,
          { $set: { tracking: event.data.tracking } },
          false,
        );
        return;
      case 'ProjectRenamed':
        await applyAtRevision(
          projects,
          projectId,
          revision,
          { $set: { name: event.data.name } },
          false,
        );
        return;
      case 'ProjectMemberRoleChanged':
        await applyAtRevision(
          members,
          memberId(projectId, event.data.userId),
          revision,
          { $set: { role: event.data.role } },
          false,
        );
        return;
      case 'ProjectMemberRemoved':
        await applyAtRevision(
          members,
          memberId(projectId, event.data.userId),
          revision,
          { $set: { active: false } },
          false,
        );
        return;
      case 'ProjectKeysIssued': {
        const newer = await keys.countDocuments({ projectId, revision: { $gt: revision } });
        if (newer === 0) {
          await keys.deleteMany({ projectId, revision: { $lt: revision } });
          const pairs: [string, KeyKind][] = [
            [event.data.publicKeyHash, 'public'],
            [event.data.secretKeyHash, 'secret'],
          ];
          await keys.bulkWrite(
            pairs.map(([hash, kind]) => ({
              updateOne: {
                filter: { _id: hash, revision: { $lt: revision } },
                update: { $set: { projectId, kind, revision } },
                upsert: true,
              },
            })),
          );
        }
        await applyAtRevision(
          projects,
          projectId,
          revision,
          {
            $set: {
              publicKeyHint: event.data.publicKeyHint,
              secretKeyHint: event.data.secretKeyHint,
            },
          },
          false,
        );
        return;
      }
      case 'ProjectSuspended':
        await applyAtRevision(
          projects,
          projectId,
          revision,
          { $set: { suspension: event.data } },
          false,
        );
        return;
      case 'ProjectReinstated':
        await applyAtRevision(projects, projectId, revision, { $set: { suspension: null } }, false);
        return;
    }
  };
}
