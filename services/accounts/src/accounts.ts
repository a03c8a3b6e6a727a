import type { AwaitViews, KeyKind, KeysApi } from '@stamp/contracts';
import { validationError } from '@stamp/http-kit';
import {
  decisionAppend,
  type EventStore,
  type Logger,
  newId,
  type ViewStore,
  withRevisionRetry,
  WrongExpectedRevisionError,
} from '@stamp/platform';

import { generateKey, hashKey, isValidKey, kindOfKey } from './keys.ts';
import { createProject, issueKeys, type KeyPair } from './projects/decide.ts';
import {
  evolveProject,
  initialProjectState,
  PROJECT_EVENT_TYPES,
  projectStreamId,
  type ProjectEvent,
  type ProjectState,
} from './projects/events.ts';
import { API_KEYS_VIEW, type ApiKeyView } from './projects/projection.ts';
import { initialUserState } from './users/events.ts';
import { registerUser } from './users/decide.ts';
import { userStreamId } from './users/events.ts';

/** Input of {@link AccountsApi.bootstrap}; keys must match the accepted shapes when given. */
export interface BootstrapInput {
  secretKey?: string;
  publicKey?: string;
  /** Email of the default user; `admin@stamp.localhost` when absent. */
  ownerEmail?: string;
}

/** Result of {@link AccountsApi.bootstrap}: plaintext keys only when they were (re)issued. */
export interface BootstrapResult {
  created: boolean;
  projectId: string;
  publicKey?: string;
  secretKey?: string;
}

/** Result of {@link AccountsApi.issueKeys}: the new pair in plaintext (shown once). */
export interface IssuedKeys {
  projectId: string;
  /** Project name, for the regenerate-keys response. */
  name: string;
  publicKey: string;
  secretKey: string;
  /** Log position of the append (0 when the pair was already current); await views on it. */
  position: number;
}

/** A project read from its stream (authoritative, not a view). */
export interface ProjectRecord extends ProjectState {
  id: string;
  /** Revision of the stream's last event, -1 when the stream does not exist. */
  revision: number;
}

/** The accounts service's command and query API (users, projects, API keys). */
export interface AccountsApi extends Pick<KeysApi, 'resolveKey'> {
  /**
   * Creates the default user and project with a key pair on a fresh installation, or makes the
   * given keys current on an existing one (see the accounts brief). Idempotent across restarts.
   * Call after the service has started, so the returned keys resolve at once.
   * @throws ApiError 422 VALIDATION_ERROR for keys or an owner email of the wrong shape.
   */
  bootstrap(input?: BootstrapInput): Promise<BootstrapResult>;
  /**
   * Issues a key pair to the project (`given`, else a new random pair); the old keys stop
   * resolving as soon as the views reflect `position`.
   * @throws ApiError 404 RESOURCE_NOT_FOUND for an unknown project; 422 for malformed keys.
   */
  issueKeys(projectId: string, given?: KeyPair, correlationId?: string): Promise<IssuedKeys>;
  /** The first project created (by log position), or null when there is none. */
  defaultProjectId(): Promise<string | null>;
  /** The project folded from its stream, or null when it does not exist. */
  project(projectId: string): Promise<ProjectRecord | null>;
}

/** Dependencies of {@link createAccountsApi}. */
export interface AccountsApiDeps {
  store: EventStore;
  views: ViewStore;
  logger: Logger;
  awaitViews: AwaitViews;
}

const MAX_ATTEMPTS = 5;

/** Claim stream of the default project of a data folder (one per folder). */
const BOOTSTRAP_STREAM = 'bootstrap-default';
const DEFAULT_OWNER_EMAIL = 'admin@stamp.localhost';
const DEFAULT_PROJECT_NAME = 'Default project';

/** The implementation of {@link AccountsApi} over the event store and the `api_keys` view. */
export function createAccountsApi(deps: AccountsApiDeps): AccountsApi {
  const { store, views, logger } = deps;
  const apiKeys = views.collection<ApiKeyView>(API_KEYS_VIEW);
  /** Serialises bootstraps of this process so two concurrent calls create one project. */
  let bootstrapping: Promise<unknown> = Promise.resolve();

  async function loadProject(projectId: string): Promise<ProjectRecord> {
    const events = await store.readStream(projectStreamId(projectId));
    let state = initialProjectState;
    let revision = -1;
    for (const event of events) {
      revision = event.revision;
      if (PROJECT_EVENT_TYPES.includes(event.type)) {
        state = evolveProject(state, { type: event.type, data: event.data } as ProjectEvent);
      }
    }
    return { ...state, id: projectId, revision };
  }

  async function defaultProjectId(): Promise<string | null> {
    const [first] = await store.readAll({ after: 0, categories: ['project'], limit: 1 });
    return first === undefined ? null : first.streamId.slice('project-'.length);
  }

  async function issue(
    projectId: string,
    given: KeyPair | undefined,
    correlationId: string,
  ): Promise<IssuedKeys> {
    const keys = given ?? { publicKey: generateKey('public'), secretKey: generateKey('secret') };
    return withRevisionRetry(
      async () => {
        const project = await loadProject(projectId);
        const events = issueKeys(project, { keys });
        const name = project.name ?? '';
        if (events.length === 0) return { projectId, name, ...keys, position: 0 };
        const { position } = await store.append([
          decisionAppend(projectStreamId(projectId), project.revision, events, {
            projectId,
            correlationId,
          }),
        ]);
        logger.info({ projectId, correlationId }, 'project keys issued');
        return { projectId, name, ...keys, position };
      },
      { attempts: MAX_ATTEMPTS },
    );
  }

  async function bootstrapOnce(input: BootstrapInput): Promise<BootstrapResult> {
    const correlationId = newId();
    const given =
      input.publicKey !== undefined && input.secretKey !== undefined
        ? { publicKey: input.publicKey, secretKey: input.secretKey }
        : undefined;
    if (given === undefined && (input.publicKey !== undefined || input.secretKey !== undefined)) {
      logger.warn('bootstrap: only one key given; both are needed, the given one is ignored');
    }
    if (
      given !== undefined &&
      (!isValidKey('public', given.publicKey) || !isValidKey('secret', given.secretKey))
    ) {
      throw validationError([
        {
          field: 'keys',
          message: 'Configured keys must be pk_/sk_ followed by 16 to 64 letters or digits',
          code: 'invalid_key',
        },
      ]);
    }
    const existing = await defaultProjectId();
    if (existing !== null) {
      // Configured keys only seed a new project: applying them again on every start would bring
      // back keys that were regenerated since (spec part 5, rule 6).
      if (given !== undefined) {
        const project = await loadProject(existing);
        if (
          project.publicKeyHash !== hashKey(given.publicKey) ||
          project.secretKeyHash !== hashKey(given.secretKey)
        ) {
          logger.warn(
            { projectId: existing },
            'bootstrap: the project exists; configured keys are not applied (issue keys with the keys:issue command)',
          );
        }
      }
      return { created: false, projectId: existing };
    }
    const keys = given ?? { publicKey: generateKey('public'), secretKey: generateKey('secret') };
    const userId = newId();
    const projectId = newId();
    const userEvents = registerUser(initialUserState, {
      email: input.ownerEmail ?? DEFAULT_OWNER_EMAIL,
      name: 'Administrator',
    });
    const projectEvents = createProject(initialProjectState, {
      name: DEFAULT_PROJECT_NAME,
      ownerId: userId,
      keys,
    });
    const metadata = { projectId, correlationId };
    let position: number;
    try {
      ({ position } = await store.append([
        // The claim makes the default project one per data folder, even when processes sharing
        // it start at the same moment.
        {
          streamId: BOOTSTRAP_STREAM,
          expectedRevision: 'no_stream',
          events: [{ type: 'DefaultProjectClaimed', data: { projectId }, metadata }],
        },
        {
          streamId: userStreamId(userId),
          expectedRevision: 'no_stream',
          events: userEvents.map((event) => ({ ...event, metadata })),
        },
        {
          streamId: projectStreamId(projectId),
          expectedRevision: 'no_stream',
          events: projectEvents.map((event) => ({ ...event, metadata })),
        },
      ]));
    } catch (error) {
      if (error instanceof WrongExpectedRevisionError && error.streamId === BOOTSTRAP_STREAM) {
        return bootstrapOnce(input);
      }
      throw error;
    }
    await deps.awaitViews(position);
    logger.info({ projectId, userId }, 'bootstrap: default project created');
    return { created: true, projectId, ...keys };
  }

  return {
    async resolveKey(key: string): Promise<{ projectId: string; kind: KeyKind } | null> {
      const kind = kindOfKey(key);
      if (kind === null || !isValidKey(kind, key)) return null;
      const found = await apiKeys.findOne({ _id: hashKey(key) });
      if (found === null || found.kind !== kind) return null;
      return { projectId: found.projectId, kind };
    },
    bootstrap(input: BootstrapInput = {}): Promise<BootstrapResult> {
      const run = bootstrapping.then(() => bootstrapOnce(input));
      bootstrapping = run.catch(() => undefined);
      return run;
    },
    issueKeys(projectId, given, correlationId = newId()) {
      return issue(projectId, given, correlationId);
    },
    defaultProjectId,
    async project(projectId) {
      const project = await loadProject(projectId);
      return project.exists ? project : null;
    },
  };
}
