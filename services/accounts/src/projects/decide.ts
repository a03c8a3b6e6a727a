import type { TrackingMode } from '@stamp/contracts';
import { conflict, notFound, validationError, type FieldError } from '@stamp/http-kit';

import { hashKey, isValidKey, keyHint, shareRandomPart } from '../keys.ts';
import {
  assertLiveProject,
  type ProjectEvent,
  type ProjectKeysIssued,
  type ProjectState,
} from './events.ts';

/** A plaintext key pair (`pk_…`, `sk_…`). Never stored; only hashed into events. */
export interface KeyPair {
  publicKey: string;
  secretKey: string;
}

/** Command: create a project owned by `ownerId` with its first key pair. */
export interface CreateProject {
  name: string;
  ownerId: string;
  keys: KeyPair;
}

/** Command: replace the project's key pair by `keys`. */
export interface IssueKeys {
  keys: KeyPair;
}

function keysIssued(keys: KeyPair): ProjectKeysIssued {
  const errors: FieldError[] = [];
  if (!isValidKey('public', keys.publicKey)) {
    errors.push({
      field: 'publicKey',
      message: 'Public key must match pk_ followed by 16 to 64 letters or digits',
      code: 'invalid_format',
    });
  }
  if (!isValidKey('secret', keys.secretKey)) {
    errors.push({
      field: 'secretKey',
      message: 'Secret key must match sk_ followed by 16 to 64 letters or digits',
      code: 'invalid_format',
    });
  }
  if (errors.length === 0 && shareRandomPart(keys.publicKey, keys.secretKey)) {
    errors.push({
      field: 'publicKey',
      message:
        'The public and the secret key share their random part, so the public key would reveal the secret key',
      code: 'same_random_part',
    });
  }
  if (errors.length > 0) throw validationError(errors);
  return {
    type: 'ProjectKeysIssued',
    data: {
      publicKeyHash: hashKey(keys.publicKey),
      secretKeyHash: hashKey(keys.secretKey),
      publicKeyHint: keyHint(keys.publicKey),
      secretKeyHint: keyHint(keys.secretKey),
    },
  };
}

/**
 * Decides {@link CreateProject}: ProjectCreated then ProjectKeysIssued (pure).
 * @throws ApiError 409 CONFLICT when the project exists; 422 VALIDATION_ERROR for a name outside
 * 1..100 characters or keys of the wrong shape.
 */
export function createProject(state: ProjectState, command: CreateProject): ProjectEvent[] {
  if (state.exists) throw conflict('Project already exists');
  const name = command.name.trim();
  if (name.length === 0 || name.length > 100) {
    throw validationError([
      { field: 'name', message: 'Name must have 1 to 100 characters', code: 'invalid_length' },
    ]);
  }
  return [
    { type: 'ProjectCreated', data: { name, ownerId: command.ownerId } },
    keysIssued(command.keys),
  ];
}

/**
 * Decides {@link IssueKeys} (spec part 5, regenerate-keys): one ProjectKeysIssued, or nothing when
 * the pair is already the project's current pair (idempotent).
 * @throws ApiError 404 RESOURCE_NOT_FOUND when the project does not exist; 422 VALIDATION_ERROR
 * for keys of the wrong shape.
 */
export function issueKeys(state: ProjectState, command: IssueKeys): ProjectEvent[] {
  if (!state.exists) throw notFound('RESOURCE_NOT_FOUND', 'Project not found');
  const event = keysIssued(command.keys);
  if (
    event.data.publicKeyHash === state.publicKeyHash &&
    event.data.secretKeyHash === state.secretKeyHash
  ) {
    return [];
  }
  return [event];
}

/**
 * Decides a change of settings: ProjectRenamed and ProjectSettingsChanged for what differs
 * (pure). `tracking` null returns the project to the installation's default.
 * @throws ApiError 404 RESOURCE_NOT_FOUND when the project does not exist; 422 VALIDATION_ERROR
 *   for a name outside 1..100 characters.
 */
export function changeSettings(
  state: ProjectState,
  change: { name?: string | undefined; tracking?: TrackingMode | null | undefined },
): ProjectEvent[] {
  assertLiveProject(state);
  const events: ProjectEvent[] = [];
  if (change.name !== undefined) {
    const trimmed = change.name.trim();
    if (trimmed.length === 0 || trimmed.length > 100) {
      throw validationError([
        { field: 'name', message: 'Name must have 1 to 100 characters', code: 'invalid_length' },
      ]);
    }
    if (trimmed !== state.name) events.push({ type: 'ProjectRenamed', data: { name: trimmed } });
  }
  if (change.tracking !== undefined && change.tracking !== state.tracking) {
    events.push({ type: 'ProjectSettingsChanged', data: { tracking: change.tracking } });
  }
  return events;
}

/**
 * Decides the deletion of a project (pure).
 * @throws ApiError 404 RESOURCE_NOT_FOUND when it does not exist or was deleted.
 */
export function deleteProject(state: ProjectState, at: Date): ProjectEvent[] {
  assertLiveProject(state);
  return [{ type: 'ProjectDeleted', data: { deletedAt: at.toISOString() } }];
}

/**
 * Decides the reset of a project's data (pure; irreversible, see `ProjectReset`).
 * @throws ApiError 404 RESOURCE_NOT_FOUND when it does not exist or was deleted.
 */
export function resetProject(state: ProjectState, at: Date): ProjectEvent[] {
  assertLiveProject(state);
  return [{ type: 'ProjectReset', data: { resetAt: at.toISOString() } }];
}
