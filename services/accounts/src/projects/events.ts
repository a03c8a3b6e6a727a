/** Events of the `project-<id>` streams (accounts service). */
import type { MemberRole, TrackingMode } from '@stamp/contracts';
import { notFound } from '@stamp/http-kit';
import type { StreamModel } from '@stamp/platform';

import {
  BILLING_EVENT_TYPES,
  type BillingEvent,
  type BillingState,
  evolveBilling,
  initialBillingState,
} from '../billing/events.ts';

/** Stream id of a project. */
export const projectStreamId = (projectId: string): string => `project-${projectId}`;

/** A project was created, owned by user `ownerId`. */
export interface ProjectCreated {
  type: 'ProjectCreated';
  data: { name: string; ownerId: string };
}

/**
 * A new key pair replaced the project's keys (spec part 5: both at once, old ones stop working).
 * Only SHA-256 hex hashes and short hints are recorded, never the keys.
 */
export interface ProjectKeysIssued {
  type: 'ProjectKeysIssued';
  data: {
    publicKeyHash: string;
    secretKeyHash: string;
    publicKeyHint: string;
    secretKeyHint: string;
  };
}

/** Why a project was suspended: which rate passed its threshold. */
export type SuspensionReason = 'BOUNCE_RATE' | 'COMPLAINT_RATE';

/** The rates a suspension was decided on, over the protection window. */
export interface SuspensionData {
  reason: SuspensionReason;
  /** Emails sent in the window, and the bounces and complaints among them. */
  sends: number;
  bounces: number;
  complaints: number;
  /** Fractions (0..1). */
  bounceRate: number;
  complaintRate: number;
  /** ISO 8601 time of the suspension. */
  suspendedAt: string;
}

/**
 * The project's bounce or complaint rate passed its threshold (issue "Bounces and complaints",
 * project protection): its sends are refused with 403 PROJECT_DISABLED until it is reinstated.
 */
export interface ProjectSuspended {
  type: 'ProjectSuspended';
  data: SuspensionData;
}

/** The project may send again; rates are measured afresh from `reinstatedAt`. */
export interface ProjectReinstated {
  type: 'ProjectReinstated';
  data: { reinstatedAt: string };
}

/** A user joined the project with a role (its creator is its first OWNER, by ProjectCreated). */
export interface ProjectMemberAdded {
  type: 'ProjectMemberAdded';
  data: { userId: string; role: MemberRole };
}

/** The project was renamed. */
export interface ProjectRenamed {
  type: 'ProjectRenamed';
  data: { name: string };
}

/** The project's settings changed: its tracking mode (null: the installation's default). */
export interface ProjectSettingsChanged {
  type: 'ProjectSettingsChanged';
  data: { tracking: TrackingMode | null };
}

/** The project was deleted: its keys stop working and its members lose it. */
export interface ProjectDeleted {
  type: 'ProjectDeleted';
  data: { deletedAt: string };
}

/**
 * The project's data was wiped (irreversible): its contacts are erased by crypto-shredding and its
 * resources (templates, campaigns, segments, workflows, events, emails, activity) leave the views;
 * its keys, members, settings, domains, webhook endpoints and suppressions stay.
 */
export interface ProjectReset {
  type: 'ProjectReset';
  data: { resetAt: string };
}

/** A member's role changed. */
export interface ProjectMemberRoleChanged {
  type: 'ProjectMemberRoleChanged';
  data: { userId: string; role: MemberRole };
}

/** A member left the project, or was removed from it. */
export interface ProjectMemberRemoved {
  type: 'ProjectMemberRemoved';
  data: { userId: string };
}

/** Every event of a project stream. */
export type ProjectEvent =
  | ProjectCreated
  | ProjectKeysIssued
  | ProjectSuspended
  | ProjectReinstated
  | ProjectRenamed
  | ProjectSettingsChanged
  | ProjectDeleted
  | ProjectReset
  | ProjectMemberAdded
  | ProjectMemberRoleChanged
  | ProjectMemberRemoved
  | BillingEvent;

/** Event types of project streams, to narrow recorded events. */
export const PROJECT_EVENT_TYPES: readonly string[] = [
  'ProjectCreated',
  'ProjectKeysIssued',
  'ProjectSuspended',
  'ProjectReinstated',
  'ProjectRenamed',
  'ProjectSettingsChanged',
  'ProjectDeleted',
  'ProjectReset',
  'ProjectMemberAdded',
  'ProjectMemberRoleChanged',
  'ProjectMemberRemoved',
  ...BILLING_EVENT_TYPES,
];

/** State of a project folded from its stream. */
export interface ProjectState {
  exists: boolean;
  name: string | null;
  ownerId: string | null;
  publicKeyHash: string | null;
  secretKeyHash: string | null;
  /** The suspension in force, or null. */
  suspension: SuspensionData | null;
  /** When the project was last reinstated (rates count from then), or null. */
  reinstatedAt: string | null;
  /** The members and their roles, by user id. */
  members: Readonly<Record<string, MemberRole>>;
  /** The project's tracking mode; null: the installation's default. */
  tracking: TrackingMode | null;
  /** Whether the project was deleted. */
  deleted: boolean;
  /** Its billing caps and subscription. */
  billing: BillingState;
}

/** State of a project with no events. */
export const initialProjectState: ProjectState = {
  exists: false,
  name: null,
  ownerId: null,
  publicKeyHash: null,
  secretKeyHash: null,
  suspension: null,
  reinstatedAt: null,
  members: {},
  tracking: null,
  deleted: false,
  billing: initialBillingState,
};

/** Applies one event to the project state (pure). */
export function evolveProject(state: ProjectState, event: ProjectEvent): ProjectState {
  switch (event.type) {
    case 'ProjectCreated':
      return {
        ...state,
        exists: true,
        name: event.data.name,
        ownerId: event.data.ownerId,
        members: { ...state.members, [event.data.ownerId]: 'OWNER' },
      };
    case 'ProjectKeysIssued':
      return {
        ...state,
        publicKeyHash: event.data.publicKeyHash,
        secretKeyHash: event.data.secretKeyHash,
      };
    case 'ProjectSuspended':
      return { ...state, suspension: event.data };
    case 'ProjectReinstated':
      return { ...state, suspension: null, reinstatedAt: event.data.reinstatedAt };
    case 'ProjectRenamed':
      return { ...state, name: event.data.name };
    case 'ProjectSettingsChanged':
      return { ...state, tracking: event.data.tracking };
    case 'ProjectDeleted':
      return { ...state, deleted: true, members: {} };
    case 'ProjectReset':
      return state;
    case 'ProjectMemberAdded':
    case 'ProjectMemberRoleChanged':
      return { ...state, members: { ...state.members, [event.data.userId]: event.data.role } };
    case 'ProjectMemberRemoved': {
      const members = Object.entries(state.members).filter(([id]) => id !== event.data.userId);
      return { ...state, members: Object.fromEntries(members) };
    }
    case 'BillingLimitsChanged':
    case 'BillingSubscriptionChanged':
      return { ...state, billing: evolveBilling(state.billing, event) };
  }
}

/** The project streams (see `streamCommands`). */
export const projectModel: StreamModel<ProjectState, ProjectEvent> = {
  stream: projectStreamId,
  initial: () => initialProjectState,
  evolve: evolveProject,
  types: new Set(PROJECT_EVENT_TYPES),
};

/**
 * Asserts a project that exists and was not deleted (the check of every project command).
 * @throws ApiError 404 RESOURCE_NOT_FOUND otherwise.
 */
export function assertLiveProject(state: ProjectState): void {
  if (!state.exists || state.deleted) throw notFound('RESOURCE_NOT_FOUND', 'Project not found');
}
