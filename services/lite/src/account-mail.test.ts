/**
 * Account mail over real sockets (spec part 4 "/auth/…"; API reference, "Dashboard authentication
 * and members"): the verification, password reset and invitation emails reach a real SMTP sink
 * from the system sender, and their single-use links work once: the address is confirmed, the
 * password replaced (ending older sessions), the invited address joins its project with its role
 * although sign-up is closed.
 */
import { parseMessage, type SmtpSink, startSmtpSink } from '@stamp/testkit/smtp-sink.ts';
import type { JsonResponse } from '@stamp/testkit/net.ts';

import type { Stamp } from './app.ts';
import { call, startTestStamp, TEST_KEYS } from './testing.ts';

const ORIGIN = 'http://dashboard.test';

let sink: SmtpSink;
let stamp: Stamp;

beforeAll(async () => {
  sink = await startSmtpSink();
  stamp = await startTestStamp({
    STAMP_PUBLIC_URL: ORIGIN,
    STAMP_SMTP_URL: sink.url,
    STAMP_SIGNUP: 'false',
    STAMP_SYSTEM_FROM: 'Stamp Accounts <accounts@dashboard.test>',
  });
});

afterAll(async () => {
  await stamp.close();
  await sink.close();
});

const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  call(stamp.url, undefined, 'POST', path, body, { origin: ORIGIN, ...headers });

const sessionOf = (response: JsonResponse): string =>
  response.headers
    .getSetCookie()
    .find((cookie) => cookie.startsWith('stamp_session='))
    ?.split(';')[0] ?? '';

/** The link of the newest email to `to` and its subject, once it arrived. */
async function linkTo(
  to: string,
  count: number,
): Promise<{ subject: string; url: URL; from: string }> {
  for (let attempt = 0; attempt < 200; attempt += 1) {
    const mails = sink.messages.filter((message) => message.envelope.to.includes(to));
    const last = mails[count - 1];
    if (last !== undefined) {
      const parsed = await parseMessage(last.raw);
      const html = typeof parsed.html === 'string' ? parsed.html : '';
      const href = /href="([^"]+)"/.exec(html)?.[1]?.replaceAll('&amp;', '&') ?? '';
      return { subject: parsed.subject ?? '', url: new URL(href), from: parsed.from?.text ?? '' };
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`no email ${count} to ${to}`);
}

it('confirms the address of a new user with the link sent to it, once', async () => {
  const signup = await post('/auth/signup', {
    email: 'ada@example.org',
    password: 'first password 1',
  });
  expect(signup.status).toBe(201);
  expect(signup.body).toMatchObject({ emailVerified: false });
  const cookie = sessionOf(signup);

  const mail = await linkTo('ada@example.org', 1);
  expect(mail.subject).toBe('Confirm your email address');
  expect(mail.from).toContain('accounts@dashboard.test');
  expect(`${mail.url.origin}${mail.url.pathname}`).toBe(`${ORIGIN}/verify-email`);
  const token = mail.url.searchParams.get('token') ?? '';
  // The log carries the body sealed, never the link.
  const log = JSON.stringify(await stamp.platform.store.readAll({ after: 0, limit: 10_000 }));
  expect(log).not.toContain(token);

  expect((await post('/auth/verify-email', { token })).status).toBe(200);
  const me = await call(stamp.url, undefined, 'GET', '/users/@me', undefined, { cookie });
  expect(me.body).toMatchObject({ emailVerified: true });
  const again = await post('/auth/verify-email', { token });
  expect(again.status).toBe(400);
  expect(again.body).toMatchObject({ error: { message: 'This link was already used' } });
  expect((await post('/auth/verify-email', { token: `${token}x` })).status).toBe(400);

  // Asking again for a confirmed address sends nothing.
  expect((await post('/auth/request-verification', {}, { cookie })).status).toBe(200);
  expect((await post('/auth/request-verification', {})).status).toBe(401);
});

it('resets a password with the emailed link, ending the older sessions', async () => {
  const login = await post('/auth/login', {
    email: 'ada@example.org',
    password: 'first password 1',
  });
  const old = sessionOf(login);
  const before = sink.messages.length;
  expect(
    (await post('/auth/request-password-reset', { email: 'nobody@example.org' })).body,
  ).toEqual({ success: true });
  expect((await post('/auth/request-password-reset', { email: 'ADA@example.org' })).body).toEqual({
    success: true,
  });
  const mail = await linkTo('ada@example.org', 2);
  expect(sink.messages.length).toBe(before + 1);
  expect(mail.subject).toBe('Reset your password');
  const token = mail.url.searchParams.get('token') ?? '';

  // Sessions end at the reset; a new login takes the new password, not the old one.
  await new Promise((resolve) => setTimeout(resolve, 1100));
  expect(
    (await post('/auth/reset-password', { token, password: 'second password 2' })).status,
  ).toBe(200);
  expect((await post('/auth/reset-password', { token, password: 'third password 3' })).status).toBe(
    400,
  );
  expect(
    (await call(stamp.url, undefined, 'GET', '/users/@me', undefined, { cookie: old })).status,
  ).toBe(401);
  expect(
    (await post('/auth/login', { email: 'ada@example.org', password: 'first password 1' })).status,
  ).toBe(401);
  expect(
    (await post('/auth/login', { email: 'ada@example.org', password: 'second password 2' })).status,
  ).toBe(200);
});

it('invites an address without an account, which joins with its role', async () => {
  const projectId = stamp.bootstrap.projectId;
  const invited = await call(
    stamp.url,
    TEST_KEYS.secretKey,
    'POST',
    `/projects/${projectId}/members`,
    {
      email: 'grace@example.org',
      role: 'ADMIN',
    },
  );
  expect(invited.status).toBe(202);
  expect(invited.body).toEqual({ email: 'grace@example.org', role: 'ADMIN', invited: true });
  const mail = await linkTo('grace@example.org', 1);
  expect(mail.subject).toBe('You are invited to Default project on Stamp');
  const inviteToken = mail.url.searchParams.get('inviteToken') ?? '';

  // Sign-up is closed: only the invitation opens it, for its own address, once.
  const stranger = await post('/auth/signup', {
    email: 'eve@example.org',
    password: 'long password 1',
  });
  expect(stranger.status).toBe(403);
  const wrong = await post('/auth/signup', {
    email: 'eve@example.org',
    password: 'long password 1',
    inviteToken,
  });
  expect(wrong.status).toBe(400);
  const joined = await post('/auth/signup', {
    email: 'grace@example.org',
    password: 'long password 1',
    inviteToken,
  });
  expect(joined.status).toBe(201);
  expect(joined.body).toMatchObject({ emailVerified: true });
  const projects = await call(stamp.url, undefined, 'GET', '/users/@me/projects', undefined, {
    cookie: sessionOf(joined),
  });
  expect(projects.body).toEqual([expect.objectContaining({ id: projectId, role: 'ADMIN' })]);
  const reused = await post('/auth/signup', {
    email: 'grace@example.org',
    password: 'long password 1',
    inviteToken,
  });
  expect(reused.status).toBe(400);
});
