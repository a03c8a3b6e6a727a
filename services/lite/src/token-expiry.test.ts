/**
 * Expired tokens over real sockets (API reference, "Dashboard authentication and members";
 * README "Users and sessions"): a session past its 7 days, an email verification link past its
 * 24 hours and a password reset link past its hour are refused, though signed with the
 * installation's own secret; the same tokens issued now are accepted.
 */
import { Secrets } from '@stamp/platform';

import { accountTokens, TOKEN_TTL_S } from '../../accounts/src/account-mail/tokens.ts';
import { SESSION_TTL_S, sessionTokens } from '../../accounts/src/sessions/tokens.ts';
import type { Stamp } from './app.ts';
import { call, startTestStamp } from './testing.ts';

const ORIGIN = 'http://dashboard.test';
const SECRET = 'an installation secret of at least thirty-two bytes';

let stamp: Stamp;
let userId = '';

beforeAll(async () => {
  stamp = await startTestStamp({ STAMP_PUBLIC_URL: ORIGIN, STAMP_SECRET: SECRET });
  const signedUp = await call(stamp.url, undefined, 'POST', '/auth/signup', {
    email: 'ada@example.org',
    password: 'correct horse battery',
  });
  expect(signedUp.status).toBe(201);
  userId = (signedUp.body as { id: string }).id;
});

afterAll(async () => {
  await stamp.close();
});

/** Tokens of the installation's secret, issued `ageS` seconds ago. */
function issuedAgo(ageS: number) {
  const then = () => Date.now() - ageS * 1000;
  const secrets = new Secrets(SECRET);
  return { session: sessionTokens(secrets, then), links: accountTokens(secrets, then) };
}

const me = (token: string) =>
  call(stamp.url, undefined, 'GET', '/users/@me', undefined, { cookie: `stamp_session=${token}` });

const post = (path: string, body: unknown) =>
  call(stamp.url, undefined, 'POST', path, body, { origin: ORIGIN });

it('refuses a session token past its lifetime', async () => {
  expect((await me(await issuedAgo(60).session.issue(userId))).status).toBe(200);
  const expired = await me(await issuedAgo(SESSION_TTL_S + 60).session.issue(userId));
  expect(expired.status).toBe(401);
});

it('refuses an email verification link past its lifetime, then takes a fresh one once', async () => {
  const claims = { userId, email: 'ada@example.org' };
  const old = await issuedAgo(TOKEN_TTL_S.VERIFY_EMAIL + 60).links.issue('VERIFY_EMAIL', claims);
  const refused = await post('/auth/verify-email', { token: old });
  expect(refused.status).toBeGreaterThanOrEqual(400);
  expect(refused.status).toBeLessThan(500);
  expect(refused.body).toMatchObject({ error: { code: expect.any(String) as string } });

  const fresh = await issuedAgo(60).links.issue('VERIFY_EMAIL', claims);
  expect((await post('/auth/verify-email', { token: fresh })).status).toBe(200);
  expect((await post('/auth/verify-email', { token: fresh })).status).toBeGreaterThanOrEqual(400);
});

it('refuses a password reset link past its lifetime, keeping the password', async () => {
  const claims = { userId, email: 'ada@example.org' };
  const old = await issuedAgo(TOKEN_TTL_S.RESET_PASSWORD + 60).links.issue(
    'RESET_PASSWORD',
    claims,
  );
  const refused = await post('/auth/reset-password', {
    token: old,
    password: 'a brand new password',
  });
  expect(refused.status).toBeGreaterThanOrEqual(400);
  expect(refused.status).toBeLessThan(500);
  const login = await post('/auth/login', {
    email: 'ada@example.org',
    password: 'correct horse battery',
  });
  expect(login.status).toBe(200);
});
