/**
 * Users and sessions over real sockets (spec part 4 "Users, projects", part 5 item 7; API
 * reference, "Dashboard authentication and members"): sign-up, login and logout with the session
 * cookie, the first user owning the default project, the cookie on dashboard routes with the
 * project named by `X-Project-Id`, cross-project 404s, the CSRF refusal, forged and key-only
 * cases, failed-login throttling and closed sign-up.
 */
import type { JsonResponse } from '@stamp/testkit/net.ts';

import type { Stamp } from './app.ts';
import { call, startTestStamp, TEST_KEYS } from './testing.ts';

const ORIGIN = 'http://dashboard.test';

let stamp: Stamp;
let defaultProject: string;

beforeAll(async () => {
  stamp = await startTestStamp({ STAMP_PUBLIC_URL: ORIGIN });
  defaultProject = stamp.bootstrap.projectId;
});

afterAll(async () => {
  await stamp.close();
});

/** The session cookie (`name=value`) a response sets, or undefined. */
function sessionOf(response: JsonResponse): string | undefined {
  const cookie = response.headers
    .getSetCookie()
    .find((value) => value.startsWith('stamp_session='));
  return cookie?.split(';')[0];
}

/** A request with the session `cookie`, from the dashboard's origin unless `headers` say else. */
const withSession = (
  cookie: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
) => call(stamp.url, undefined, method, path, body, { cookie, origin: ORIGIN, ...headers });

async function signup(email: string, password = 'correct horse battery'): Promise<string> {
  const response = await call(stamp.url, undefined, 'POST', '/auth/signup', {
    email,
    password,
    name: email.split('@')[0],
  });
  expect(response.status).toBe(201);
  const cookie = sessionOf(response);
  expect(cookie).toBeDefined();
  return cookie ?? '';
}

it('signs the first user up as the owner of the default project, with a session cookie', async () => {
  const response = await call(stamp.url, undefined, 'POST', '/auth/signup', {
    email: 'Owner@Example.org',
    password: 'correct horse battery',
    name: 'Ada',
  });
  expect(response.status).toBe(201);
  expect(response.body).toEqual({
    id: expect.any(String) as string,
    email: 'owner@example.org',
    name: 'Ada',
    emailVerified: false,
    createdAt: expect.any(String) as string,
  });
  const setCookie = response.headers.getSetCookie().join('\n');
  expect(setCookie).toMatch(
    /stamp_session=[^;]+; Max-Age=604800; Path=\/; Expires=[^;]+; HttpOnly; SameSite=Lax/,
  );
  expect(setCookie).not.toMatch(/Secure/);
  const cookie = sessionOf(response) ?? '';

  // The log (and so the bus) never carries the password or its hash in the clear.
  const log = JSON.stringify(await stamp.platform.store.readAll({ after: 0, limit: 10_000 }));
  expect(log).toContain('UserRegistered');
  expect(log).not.toContain('$argon2id');
  expect(log).not.toContain('correct horse battery');

  const me = await withSession(cookie, 'GET', '/users/@me');
  expect(me.body).toMatchObject({ email: 'owner@example.org', name: 'Ada' });
  const projects = await withSession(cookie, 'GET', '/users/@me/projects');
  expect(projects.body).toEqual([
    expect.objectContaining({ id: defaultProject, name: 'Default project', role: 'OWNER' }),
  ]);

  // The dashboard routes of the project, named by X-Project-Id.
  const created = await withSession(
    cookie,
    'POST',
    '/contacts',
    { email: 'c@example.org' },
    {
      'x-project-id': defaultProject,
    },
  );
  expect(created.status).toBe(201);
  const listed = await withSession(cookie, 'GET', '/contacts', undefined, {
    'x-project-id': defaultProject,
  });
  expect(JSON.stringify(listed.body)).toContain('c@example.org');
  // Named by the path.
  const security = await withSession(cookie, 'GET', `/projects/${defaultProject}/security`);
  expect(security.status).toBe(200);
});

it('refuses what a session may not do', async () => {
  const login = await call(stamp.url, undefined, 'POST', '/auth/login', {
    email: 'owner@example.org',
    password: 'correct horse battery',
  });
  expect(login.status).toBe(200);
  const cookie = sessionOf(login) ?? '';
  const project = { 'x-project-id': defaultProject };

  // No project named: 400; another project: 404, as an unknown one.
  expect((await withSession(cookie, 'GET', '/contacts')).status).toBe(400);
  const other = await withSession(cookie, 'GET', '/contacts', undefined, {
    'x-project-id': '00000000-0000-7000-8000-000000000000',
  });
  expect(other.status).toBe(404);
  expect(other.body).toMatchObject({ error: { code: 'RESOURCE_NOT_FOUND' } });
  // CSRF: a state-changing request from another origin, or without one.
  for (const origin of ['http://evil.test', '']) {
    const refused = await withSession(
      cookie,
      'POST',
      '/contacts',
      { email: 'x@example.org' },
      {
        ...project,
        origin,
      },
    );
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ error: { code: 'FORBIDDEN' } });
  }
  // /v1 is key-only.
  const send = await withSession(
    cookie,
    'POST',
    '/v1/track',
    { event: 'x', email: 'x@example.org' },
    project,
  );
  expect(send.status).toBe(401);
  // A forged or altered token.
  const [name, token] = cookie.split('=');
  const [header, payload] = (token ?? '').split('.');
  for (const forged of [`${name}=${header}.${payload}.AAAA`, `${name}=not-a-jwt`]) {
    const refused = await withSession(forged, 'GET', '/users/@me');
    expect(refused.status).toBe(401);
    expect(refused.body).toMatchObject({ error: { code: 'UNAUTHORIZED' } });
  }
  // The user routes need a user, not a key.
  const byKey = await call(stamp.url, TEST_KEYS.secretKey, 'GET', '/users/@me');
  expect(byKey.status).toBe(401);
});

it('keeps projects apart: a second user creates their own and cannot reach the first', async () => {
  const cookie = await signup('second@example.org');
  expect((await withSession(cookie, 'GET', '/users/@me/projects')).body).toEqual([]);
  const denied = await withSession(cookie, 'GET', '/contacts', undefined, {
    'x-project-id': defaultProject,
  });
  expect(denied.status).toBe(404);

  const created = await withSession(cookie, 'POST', '/users/@me/projects', {
    name: 'Side project',
  });
  expect(created.status).toBe(201);
  const project = created.body as {
    id: string;
    role: string;
    secretKey: string;
    publicKey: string;
  };
  expect(project).toMatchObject({ name: 'Side project', role: 'OWNER' });
  expect(project.secretKey).toMatch(/^sk_/);
  // Its key works; its data is its own.
  const contacts = await call(stamp.url, project.secretKey, 'GET', '/contacts');
  expect(contacts.status).toBe(200);
  expect(JSON.stringify(contacts.body)).not.toContain('c@example.org');
  const mine = await withSession(cookie, 'GET', '/contacts', undefined, {
    'x-project-id': project.id,
  });
  expect(mine.status).toBe(200);

  const owner = await call(stamp.url, undefined, 'POST', '/auth/login', {
    email: 'owner@example.org',
    password: 'correct horse battery',
  });
  const theirs = await withSession(sessionOf(owner) ?? '', 'GET', '/contacts', undefined, {
    'x-project-id': project.id,
  });
  expect(theirs.status).toBe(404);
});

it('refuses bad sign-ups and logins alike, and slows down repeated failures', async () => {
  const taken = await call(stamp.url, undefined, 'POST', '/auth/signup', {
    email: 'owner@example.org',
    password: 'another password',
  });
  expect(taken.status).toBe(409);
  for (const body of [
    { email: 'short@example.org', password: 'short' },
    { email: 'not an email', password: 'long enough password' },
    { password: 'long enough password' },
  ]) {
    expect((await call(stamp.url, undefined, 'POST', '/auth/signup', body)).status).toBe(422);
  }

  const wrong = await call(stamp.url, undefined, 'POST', '/auth/login', {
    email: 'owner@example.org',
    password: 'wrong password',
  });
  const unknown = await call(stamp.url, undefined, 'POST', '/auth/login', {
    email: 'nobody@example.org',
    password: 'wrong password',
  });
  expect(wrong.status).toBe(401);
  expect(unknown.status).toBe(401);
  const errorOf = (response: JsonResponse) => {
    const { error } = response.body as { error: Record<string, unknown> };
    return { code: error.code, message: error.message, statusCode: error.statusCode };
  };
  expect(errorOf(wrong)).toEqual(errorOf(unknown));
  expect(errorOf(wrong)).toMatchObject({ code: 'INVALID_CREDENTIALS' });
  expect(sessionOf(wrong)).toBeUndefined();

  // Ten failures for one account: the next attempt, even with the right password, waits.
  for (let failure = 1; failure <= 10; failure += 1) {
    await call(stamp.url, undefined, 'POST', '/auth/login', {
      email: 'second@example.org',
      password: `wrong ${failure}`,
    });
  }
  const throttled = await call(stamp.url, undefined, 'POST', '/auth/login', {
    email: 'second@example.org',
    password: 'correct horse battery',
  });
  expect(throttled.status).toBe(429);
  expect(Number(throttled.headers.get('retry-after'))).toBeGreaterThan(0);

  const crossSite = await call(
    stamp.url,
    undefined,
    'POST',
    '/auth/login',
    { email: 'owner@example.org', password: 'correct horse battery' },
    { origin: 'http://evil.test' },
  );
  expect(crossSite.status).toBe(403);

  const logout = await call(stamp.url, undefined, 'GET', '/auth/logout');
  expect(logout.status).toBe(200);
  expect(logout.headers.getSetCookie().join('\n')).toMatch(
    /stamp_session=; Path=\/; Expires=Thu, 01 Jan 1970/,
  );
});

it('lets only the first user sign up when sign-up is closed', async () => {
  const closed = await startTestStamp({ STAMP_SIGNUP: 'false' });
  try {
    const body = (email: string) => ({ email, password: 'correct horse battery' });
    const first = await call(
      closed.url,
      undefined,
      'POST',
      '/auth/signup',
      body('first@example.org'),
    );
    expect(first.status).toBe(201);
    const second = await call(
      closed.url,
      undefined,
      'POST',
      '/auth/signup',
      body('next@example.org'),
    );
    expect(second.status).toBe(403);
    expect(second.body).toMatchObject({ error: { code: 'FORBIDDEN' } });
  } finally {
    await closed.close();
  }
});

describe('members and roles', () => {
  const password = 'correct horse battery';
  const login = async (email: string) =>
    sessionOf(await call(stamp.url, undefined, 'POST', '/auth/login', { email, password })) ?? '';
  const inProject = (cookie: string, method: string, path: string, body?: unknown) =>
    withSession(cookie, method, path, body, { 'x-project-id': defaultProject });
  it('enforces the permission table for each role', async () => {
    const members = `/projects/${defaultProject}/members`;
    const owner = await login('owner@example.org');
    await signup('admin@example.org');
    await signup('member@example.org');
    const idOf = async (email: string) => {
      const listed = (await inProject(owner, 'GET', members)).body as {
        userId: string;
        email: string;
      }[];
      return listed.find((member) => member.email === email)?.userId ?? '';
    };
    for (const [email, role] of [
      ['admin@example.org', 'ADMIN'],
      ['member@example.org', 'MEMBER'],
    ] as const) {
      const added = await inProject(owner, 'POST', members, { email, role });
      expect(added.status).toBe(201);
      expect(added.body).toMatchObject({ email, role });
    }
    expect(
      (await inProject(owner, 'POST', members, { email: 'member@example.org', role: 'ADMIN' }))
        .status,
    ).toBe(409);
    expect(
      (await inProject(owner, 'POST', members, { email: 'nobody@example.org', role: 'ADMIN' }))
        .status,
    ).toBe(202);
    expect(
      (await inProject(owner, 'POST', members, { email: 'admin@example.org', role: 'OWNER' }))
        .status,
    ).toBe(422);

    const admin = await login('admin@example.org');
    const member = await login('member@example.org');
    const memberId = await idOf('member@example.org');
    const adminId = await idOf('admin@example.org');
    const ownerId = await idOf('owner@example.org');

    // Each role against each guarded action: [cookie, expected statuses].
    const regenerate = `/users/@me/projects/${defaultProject}/regenerate-keys`;
    expect((await inProject(member, 'POST', regenerate)).status).toBe(403);
    expect((await inProject(member, 'GET', members)).status).toBe(200);
    expect(
      (await inProject(member, 'PATCH', `${members}/${adminId}`, { role: 'MEMBER' })).status,
    ).toBe(403);
    expect((await inProject(member, 'GET', '/contacts')).status).toBe(200);
    expect(
      (await inProject(admin, 'PATCH', `${members}/${memberId}`, { role: 'ADMIN' })).status,
    ).toBe(200);
    expect(
      (await inProject(admin, 'PATCH', `${members}/${memberId}`, { role: 'MEMBER' })).status,
    ).toBe(200);
    expect(
      (await inProject(admin, 'PATCH', `${members}/${memberId}`, { role: 'OWNER' })).status,
    ).toBe(403);
    expect((await inProject(admin, 'DELETE', `${members}/${ownerId}`)).status).toBe(403);
    const regenerated = await inProject(admin, 'POST', regenerate);
    expect(regenerated.status).toBe(200);

    // The last OWNER stays; once another is OWNER, the first may step down.
    expect((await inProject(owner, 'DELETE', `${members}/${ownerId}`)).status).toBe(409);
    expect(
      (await inProject(owner, 'PATCH', `${members}/${ownerId}`, { role: 'ADMIN' })).status,
    ).toBe(409);
    expect(
      (await inProject(owner, 'PATCH', `${members}/${adminId}`, { role: 'OWNER' })).status,
    ).toBe(200);
    expect(
      (await inProject(owner, 'PATCH', `${members}/${ownerId}`, { role: 'ADMIN' })).status,
    ).toBe(200);

    // A member leaves: the project is no longer theirs.
    expect((await inProject(member, 'DELETE', `${members}/${memberId}`)).status).toBe(204);
    expect((await inProject(member, 'GET', '/contacts')).status).toBe(404);
    expect((await withSession(member, 'GET', '/users/@me/projects')).body).toEqual([]);
  });
});

describe('project settings and onboarding', () => {
  it('renames a project and reports its onboarding steps as they are done', async () => {
    const cookie = await signup('onboarding@example.org');
    const created = await withSession(cookie, 'POST', '/users/@me/projects', { name: 'Fresh' });
    const project = created.body as { id: string; secretKey: string; publicKey: string };
    const state = async () =>
      (await withSession(cookie, 'GET', `/projects/${project.id}/setup-state`)).body as {
        steps: { step: string; done: boolean }[];
        completed: boolean;
      };
    expect(await state()).toEqual({
      steps: [
        { step: 'DOMAIN_ADDED', done: false },
        { step: 'DOMAIN_VERIFIED', done: false },
        { step: 'EMAIL_SENT', done: false },
        { step: 'EVENT_TRACKED', done: false },
      ],
      completed: false,
    });
    await call(stamp.url, project.publicKey, 'POST', '/v1/track', {
      event: 'signed-up',
      email: 'first@example.org',
    });
    await call(stamp.url, project.secretKey, 'POST', '/v1/send', {
      to: 'first@example.org',
      from: 'hello@sandbox.stamp.localhost',
      subject: 'Hi',
      body: '<p>Hi</p>',
    });
    await call(stamp.url, project.secretKey, 'POST', '/domains', { domain: 'onboarding.test' });
    for (let attempt = 0; attempt < 100; attempt += 1) {
      const done = (await state()).steps.filter((step) => step.done).map((step) => step.step);
      if (done.length === 3) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const progress = await state();
    expect(progress.steps.filter((step) => step.done).map((step) => step.step)).toEqual([
      'DOMAIN_ADDED',
      'EMAIL_SENT',
      'EVENT_TRACKED',
    ]);
    expect(progress.completed).toBe(false);

    const renamed = await withSession(cookie, 'PATCH', `/users/@me/projects/${project.id}`, {
      name: '  Renamed  ',
    });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ id: project.id, name: 'Renamed', role: 'OWNER' });
    const bad = await withSession(cookie, 'PATCH', `/users/@me/projects/${project.id}`, {
      name: '',
    });
    expect(bad.status).toBe(422);
    // Not a member: 404, as for an unknown project.
    const owner = sessionOf(
      await call(stamp.url, undefined, 'POST', '/auth/login', {
        email: 'owner@example.org',
        password: 'correct horse battery',
      }),
    );
    const foreign = await withSession(owner ?? '', 'PATCH', `/users/@me/projects/${project.id}`, {
      name: 'Mine',
    });
    expect(foreign.status).toBe(404);
  });
});

describe('tracking per project', () => {
  it('follows the tracking mode the project sets, else the installation default', async () => {
    const cookie = await signup('tracking@example.org');
    const created = await withSession(cookie, 'POST', '/users/@me/projects', { name: 'Quiet' });
    const project = created.body as { id: string; secretKey: string };
    const set = await withSession(cookie, 'PATCH', `/users/@me/projects/${project.id}`, {
      tracking: 'DISABLED',
    });
    expect(set.body).toMatchObject({ name: 'Quiet', tracking: 'DISABLED' });
    expect(
      (await withSession(cookie, 'PATCH', `/users/@me/projects/${project.id}`, {})).status,
    ).toBe(422);
    expect(
      (
        await withSession(cookie, 'PATCH', `/users/@me/projects/${project.id}`, {
          tracking: 'SOMETIMES',
        })
      ).status,
    ).toBe(422);

    /** The raw message of an email with a link sent with `key`, once in the outbox. */
    const rawOf = async (key: string): Promise<string> => {
      const sent = await call(stamp.url, key, 'POST', '/v1/send', {
        to: 'reader@example.org',
        from: 'news@sandbox.stamp.localhost',
        subject: 'Links',
        body: '<p><a href="https://example.org/page">Read</a></p>',
      });
      const id = (sent.body as { data: { emails: { email: string }[] } }).data.emails[0]?.email;
      for (let attempt = 0; attempt < 200; attempt += 1) {
        const found = await call(stamp.url, key, 'GET', `/outbox/${id ?? ''}`);
        if (found.status === 200) return (found.body as { raw: string }).raw;
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      throw new Error('the email never reached the outbox');
    };
    const loud = await withSession(cookie, 'POST', '/users/@me/projects', { name: 'Loud' });
    expect(await rawOf(project.secretKey)).not.toContain('/t/c/');
    expect(await rawOf((loud.body as { secretKey: string }).secretKey)).toContain('/t/c/');
  });
});

describe('deleting a project', () => {
  it('lets its OWNER delete it: its keys stop working and its members lose it', async () => {
    const owner = await signup('deleter@example.org');
    const bystander = await signup('bystander@example.org');
    const created = await withSession(owner, 'POST', '/users/@me/projects', { name: 'Doomed' });
    const project = created.body as { id: string; secretKey: string };
    const path = `/users/@me/projects/${project.id}`;
    expect((await call(stamp.url, project.secretKey, 'GET', '/contacts')).status).toBe(200);

    expect((await withSession(bystander, 'DELETE', path)).status).toBe(404);
    expect((await withSession(owner, 'DELETE', path)).status).toBe(204);
    expect((await call(stamp.url, project.secretKey, 'GET', '/contacts')).status).toBe(401);
    expect((await withSession(owner, 'GET', '/users/@me/projects')).body).toEqual([]);
    const gone = await withSession(owner, 'GET', '/contacts', undefined, {
      'x-project-id': project.id,
    });
    expect(gone.status).toBe(404);
    expect((await withSession(owner, 'DELETE', path)).status).toBe(404);
  });
});
