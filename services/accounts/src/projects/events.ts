/** Events of the `project-<id>` streams (accounts service). */

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

/** Every event of a project stream. */
export type ProjectEvent = ProjectCreated | ProjectKeysIssued;

/** Event types of project streams, to narrow recorded events. */
export const PROJECT_EVENT_TYPES: readonly string[] = ['ProjectCreated', 'ProjectKeysIssued'];

/** State of a project folded from its stream. */
export interface ProjectState {
  exists: boolean;
  name: string | null;
  ownerId: string | null;
  publicKeyHash: string | null;
  secretKeyHash: string | null;
}

/** State of a project with no events. */
export const initialProjectState: ProjectState = {
  exists: false,
  name: null,
  ownerId: null,
  publicKeyHash: null,
  secretKeyHash: null,
};

/** Applies one event to the project state (pure). */
export function evolveProject(state: ProjectState, event: ProjectEvent): ProjectState {
  switch (event.type) {
    case 'ProjectCreated':
      return { ...state, exists: true, name: event.data.name, ownerId: event.data.ownerId };
    case 'ProjectKeysIssued':
      return {
        ...state,
        publicKeyHash: event.data.publicKeyHash,
        secretKeyHash: event.data.secretKeyHash,
      };
  }
}
