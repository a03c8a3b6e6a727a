import { ApiError } from '@stamp/http-kit';

import { hashKey } from '../keys.ts';
import { createProject, issueKeys, type KeyPair } from './decide.ts';
import {
  evolveProject,
  initialProjectState,
  type ProjectEvent,
  type ProjectState,
} from './events.ts';

const keysA: KeyPair = {
  publicKey: 'pk_AAAAAAAAAAAAAAAAAAAAAAAAAAAA1234',
  secretKey: 'sk_BBBBBBBBBBBBBBBBBBBBBBBBBBBB5678',
};
const keysB: KeyPair = {
  publicKey: 'pk_CCCCCCCCCCCCCCCCCCCCCCCCCCCCabcd',
  secretKey: 'sk_DDDDDDDDDDDDDDDDDDDDDDDDDDDDefgh',
};

const given = (...events: ProjectEvent[]): ProjectState =>
  events.reduce(evolveProject, initialProjectState);

const created: ProjectEvent = { type: 'ProjectCreated', data: { name: 'Acme', ownerId: 'u1' } };
const issuedA: ProjectEvent = {
  type: 'ProjectKeysIssued',
  data: {
    publicKeyHash: hashKey(keysA.publicKey),
    secretKeyHash: hashKey(keysA.secretKey),
    publicKeyHint: 'pk_…1234',
    secretKeyHint: 'sk_…5678',
  },
};

function thrown(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected an ApiError');
}

describe('createProject', () => {
  it('given no events, when creating, then ProjectCreated and ProjectKeysIssued with hashes only', () => {
    const events = createProject(given(), { name: ' Acme ', ownerId: 'u1', keys: keysA });
    expect(events).toEqual([created, issuedA]);
    expect(JSON.stringify(events)).not.toContain(keysA.secretKey);
    expect(JSON.stringify(events)).not.toContain(keysA.publicKey);
  });

  it('given an existing project, when creating, then 409 CONFLICT', () => {
    const error = thrown(() =>
      createProject(given(created, issuedA), { name: 'Acme', ownerId: 'u1', keys: keysA }),
    );
    expect([error.status, error.code]).toEqual([409, 'CONFLICT']);
  });

  it('given no events, when the name is empty or the keys malformed, then 422 naming the fields', () => {
    expect(
      thrown(() => createProject(given(), { name: ' ', ownerId: 'u1', keys: keysA })).status,
    ).toBe(422);
    const error = thrown(() =>
      createProject(given(), {
        name: 'Acme',
        ownerId: 'u1',
        keys: { publicKey: 'sk_AAAAAAAAAAAAAAAAAAAA', secretKey: 'sk_short' },
      }),
    );
    expect(error.code).toBe('VALIDATION_ERROR');
    expect(error.options.errors?.map((e) => e.field)).toEqual(['publicKey', 'secretKey']);
  });
});

describe('issueKeys', () => {
  it('given a project, when issuing a new pair, then one ProjectKeysIssued with the new hashes', () => {
    const events = issueKeys(given(created, issuedA), { keys: keysB });
    expect(events).toEqual([
      {
        type: 'ProjectKeysIssued',
        data: {
          publicKeyHash: hashKey(keysB.publicKey),
          secretKeyHash: hashKey(keysB.secretKey),
          publicKeyHint: 'pk_…abcd',
          secretKeyHint: 'sk_…efgh',
        },
      },
    ]);
  });

  it('given a project with that pair, when issuing the same pair, then nothing', () => {
    expect(issueKeys(given(created, issuedA), { keys: keysA })).toEqual([]);
  });

  it('given no project, when issuing, then 404 RESOURCE_NOT_FOUND', () => {
    const error = thrown(() => issueKeys(given(), { keys: keysB }));
    expect([error.status, error.code]).toEqual([404, 'RESOURCE_NOT_FOUND']);
  });

  it('given a project, when a key is malformed, then 422', () => {
    const error = thrown(() =>
      issueKeys(given(created, issuedA), {
        keys: { ...keysB, secretKey: 'sk_with-dash-1234567890' },
      }),
    );
    expect(error.options.errors?.map((e) => e.field)).toEqual(['secretKey']);
  });

  it('given a project, when the keys share their random part, then 422 and no event', () => {
    const error = thrown(() =>
      issueKeys(given(created, issuedA), {
        keys: {
          publicKey: 'pk_SameRandomPart0123456789',
          secretKey: 'sk_SameRandomPart0123456789',
        },
      }),
    );
    expect([error.status, error.code]).toEqual([422, 'VALIDATION_ERROR']);
    expect(error.options.errors).toMatchObject([{ field: 'publicKey', code: 'same_random_part' }]);
  });
});
