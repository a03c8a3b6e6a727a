/**
 * The permission table (README "Members and roles"; `PERMISSIONS` in the accounts service) over
 * real sockets: each role (OWNER, ADMIN, MEMBER, by session cookie) against a request of each
 * guarded action, answered 403 FORBIDDEN exactly where the table says no. A guarded action
 * without a request here fails the test.
 */
import type { MemberRole } from '@stamp/contracts';

import { type Action, PERMISSIONS } from '../../accounts/src/members/permissions.ts';
import type { Stamp } from './app.ts';
import { call, startTestStamp } from './testing.ts';

const ORIGIN = 'http://dashboard.test';
const PASSWORD = 'correct horse battery';

let stamp: Stamp;

beforeAll(async () => {
  stamp = await startTestStamp({ STAMP_PUBLIC_URL: ORIGIN });
});

afterAll(async () => {
  await stamp.close();
});

/** A request of a guarded action; `undo` brings the project back after an allowed one. */
interface GuardedRequest {
  method: string;
  path: string;
  body?: unknown;
  undo?: () => Promise<unknown>;
}

/** Signs `email` up; its session cookie. */
async function signup(email: string): Promise<string> {
  const response = await call(stamp.url, undefined, 'POST', '/auth/signup', {
    email,
    password: PASSWORD,
  });
  expect(response.status).toBe(201);
  return response.headers.getSetCookie()[0]?.split(';')[0] ?? '';
}

it('answers each role as the table says, for every guarded action', async () => {
  const project = stamp.bootstrap.projectId;
  const cookies: Record<MemberRole, string> = {
    OWNER: await signup('owner@example.org'),
    ADMIN: await signup('admin@example.org'),
    MEMBER: await signup('member@example.org'),
  };
  const as = (role: MemberRole, method: string, path: string, body?: unknown) =>
    call(stamp.url, undefined, method, path, body, {
      cookie: cookies[role],
      origin: ORIGIN,
      'x-project-id': project,
    });
  for (const [email, role] of [
    ['admin@example.org', 'ADMIN'],
    ['member@example.org', 'MEMBER'],
  ] as const) {
    expect(
      (await as('OWNER', 'POST', `/projects/${project}/members`, { email, role })).status,
    ).toBe(201);
  }
  const members = (await as('OWNER', 'GET', `/projects/${project}/members`)).body as {
    userId: string;
    email: string;
  }[];
  const memberId = members.find((member) => member.email === 'member@example.org')?.userId ?? '';

  const requests: Record<Action, GuardedRequest> = {
    'members.read': { method: 'GET', path: `/projects/${project}/members` },
    'members.manage': {
      method: 'POST',
      path: `/projects/${project}/members`,
      body: { email: 'invitee@example.org', role: 'MEMBER' },
    },
    'owners.manage': {
      method: 'PATCH',
      path: `/projects/${project}/members/${memberId}`,
      body: { role: 'OWNER' },
      undo: () =>
        as('OWNER', 'PATCH', `/projects/${project}/members/${memberId}`, { role: 'MEMBER' }),
    },
    'keys.manage': { method: 'POST', path: `/users/@me/projects/${project}/regenerate-keys` },
    'project.update': {
      method: 'PATCH',
      path: `/users/@me/projects/${project}`,
      body: { name: 'Renamed' },
    },
    'billing.read': { method: 'GET', path: `/users/@me/projects/${project}/billing-limits` },
    'billing.manage': {
      method: 'PUT',
      path: `/users/@me/projects/${project}/billing-limits`,
      body: { transactional: 1000 },
    },
    'project.reset': { method: 'POST', path: `/users/@me/projects/${project}/reset` },
    // Last: an allowed deletion ends the project.
    'project.delete': { method: 'DELETE', path: `/users/@me/projects/${project}` },
  };
  expect(Object.keys(requests).sort()).toEqual(Object.keys(PERMISSIONS).sort());

  const wrong: string[] = [];
  for (const [action, request] of Object.entries(requests) as [Action, GuardedRequest][]) {
    // The lesser roles first, so an allowed destructive action comes after the refusals.
    for (const role of ['MEMBER', 'ADMIN', 'OWNER'] as const) {
      const allowed = PERMISSIONS[action].includes(role);
      const response = await as(role, request.method, request.path, request.body);
      const refused = response.status === 403;
      if (allowed === refused || response.status >= 500 || response.status === 404) {
        wrong.push(`${role} ${action}: ${response.status} ${JSON.stringify(response.body)}`);
      }
      if (allowed && !refused) await request.undo?.();
    }
  }
  expect(wrong).toEqual([]);
});
