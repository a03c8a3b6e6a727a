/**
 * Sign-up, login and logout (spec part 4, "Users"; API reference, "Dashboard authentication and
 * members"), answered without an API key:
 * - `POST /auth/signup {email, password, name?}` → 201 the user, and the session cookie. The
 *   password has 8 to 256 characters. 403 FORBIDDEN when sign-up is closed (STAMP_SIGNUP=false;
 *   the first user of an installation may always sign up), 409 CONFLICT when the email has an
 *   account, 422 VALIDATION_ERROR for a bad body.
 * - `POST /auth/login {email, password}` → 200 the user, and the session cookie; 401
 *   INVALID_CREDENTIALS for an unknown email and for a wrong password alike. After 10 failures
 *   for one email, or 30 from one address, within 15 minutes: 429 RATE_LIMIT_EXCEEDED with
 *   `Retry-After`, until the window has passed (a success clears the email's count).
 * - `POST /auth/request-verification` (session cookie) → 200 `{success: true}`, a new
 *   verification email sent unless the address is confirmed (at most 3 an hour, then 429).
 * - `POST /auth/verify-email {token}` → 200 `{success: true}`: the address is confirmed.
 * - `POST /auth/request-password-reset {email}` → 200 `{success: true}` whether the account
 *   exists or not; a reset link is sent when it does (at most 3 an hour per address).
 * - `POST /auth/reset-password {token, password}` → 200 `{success: true}`: the new password
 *   holds, and the sessions issued before end.
 *   The three links answer 400 BAD_REQUEST when invalid, expired or used.
 * - `GET /auth/logout` → 200 `{success: true}`, and the cookie cleared.
 * A sign-up or login posted by a browser from another origin than the public URL's is refused
 * with 403 FORBIDDEN (login CSRF).
 */
import type { AwaitViews } from '@stamp/contracts';
import {
  ApiError,
  clearSessionCookie,
  clientAddressOf,
  emailAddress,
  parse,
  requestIdOf,
  sessionCookieOf,
  setSessionCookie,
} from '@stamp/http-kit';
import express, { type RequestHandler, type Response, Router } from 'express';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { z } from 'zod';

import type { AccountMail } from '../account-mail/commands.ts';
import type { UsersApi } from '../users/commands.ts';
import { PASSWORD_LENGTH } from '../users/passwords.ts';

/** Dependencies of {@link authRouter}. */
export interface AuthRouterDeps {
  users: UsersApi;
  mail: AccountMail;
  awaitViews: AwaitViews;
  /** STAMP_PUBLIC_URL: the cookie is Secure when it is https. */
  publicUrl: string;
}

/** Failed logins allowed per email, and per client address, in {@link LOGIN_WINDOW_S}. */
export const LOGIN_FAILURES = { perEmail: 10, perAddress: 30 } as const;

/** The window of failed logins, seconds (15 minutes). */
export const LOGIN_WINDOW_S = 15 * 60;

const password = z.string().min(PASSWORD_LENGTH.min).max(PASSWORD_LENGTH.max);
/** Body of POST /auth/signup. */
export const signupBody = z.object({
  email: emailAddress,
  password,
  name: z.string().trim().min(1).max(100).optional(),
  inviteToken: z.string().min(1).max(4096).optional(),
});
/** Body of POST /auth/verify-email. */
export const tokenBody = z.object({ token: z.string().min(1).max(4096) });
/** Body of POST /auth/reset-password. */
export const resetBody = z.object({ token: z.string().min(1).max(4096), password });
/** Body of POST /auth/request-password-reset. */
export const resetRequestBody = z.object({ email: z.string().max(320) });

/** Account emails sent per address (reset) or user (verification) in {@link MAIL_WINDOW_S}. */
export const MAILS_PER_WINDOW = 3;

/** The window of account emails, seconds (1 hour). */
export const MAIL_WINDOW_S = 3600;
/** Body of POST /auth/login. */
export const loginBody = z.object({
  email: z.string().max(320),
  password: z.string().max(PASSWORD_LENGTH.max),
});

const json = express.json({ limit: '16kb' });

/** The auth router (see the module comment). */
export function authRouter(deps: AuthRouterDeps): Router {
  const router = Router();
  const byEmail = new RateLimiterMemory({
    keyPrefix: 'login-email',
    points: LOGIN_FAILURES.perEmail,
    duration: LOGIN_WINDOW_S,
  });
  const byAddress = new RateLimiterMemory({
    keyPrefix: 'login-address',
    points: LOGIN_FAILURES.perAddress,
    duration: LOGIN_WINDOW_S,
  });

  /** 429 when `limiter` has no points left for `key`. */
  async function refuseWhenSpent(limiter: RateLimiterMemory, key: string, res: Response) {
    const spent = await limiter.get(key);
    if (spent === null || spent.remainingPoints > 0) return;
    const seconds = Math.max(1, Math.ceil(spent.msBeforeNext / 1000));
    res.set('Retry-After', String(seconds));
    throw new ApiError(429, 'RATE_LIMIT_EXCEEDED', 'Too many failed logins: try again later');
  }

  const publicOrigin = new URL(deps.publicUrl).origin;
  /**
   * 403 FORBIDDEN when a browser posts from another site (its `Origin` is not the public URL's):
   * no page elsewhere may sign a visitor in, or up, as somebody else.
   */
  const sameOrigin: RequestHandler = (req, _res, next) => {
    const origin = req.get('origin');
    if (origin === undefined || origin === publicOrigin) next();
    else next(new ApiError(403, 'FORBIDDEN', 'Cross-site request refused'));
  };

  router.post('/auth/signup', sameOrigin, json, async (req, res) => {
    const body = parse(signupBody, req.body ?? {});
    const created = await deps.users.signup({
      email: body.email,
      password: body.password,
      ...(body.name === undefined ? {} : { name: body.name }),
      ...(body.inviteToken === undefined ? {} : { inviteToken: body.inviteToken }),
      correlationId: requestIdOf(res),
    });
    setSessionCookie(res, created.token, deps.publicUrl);
    res.status(201).json(created.user);
  });

  router.post('/auth/login', sameOrigin, json, async (req, res) => {
    const body = parse(loginBody, req.body ?? {});
    const email = body.email.trim().toLowerCase();
    const address = clientAddressOf(req, res);
    await refuseWhenSpent(byEmail, email, res);
    await refuseWhenSpent(byAddress, address, res);
    const signedIn = await deps.users.login(email, body.password);
    if (signedIn === null) {
      await Promise.all([
        byEmail.penalty(email).catch(ignoreSpent),
        byAddress.penalty(address).catch(ignoreSpent),
      ]);
      throw new ApiError(401, 'INVALID_CREDENTIALS', 'Invalid email or password');
    }
    await byEmail.delete(email);
    setSessionCookie(res, signedIn.token, deps.publicUrl);
    res.json(signedIn.user);
  });

  const mails = new RateLimiterMemory({
    keyPrefix: 'account-mail',
    points: MAILS_PER_WINDOW,
    duration: MAIL_WINDOW_S,
  });
  /** Whether another account email to `key` fits in the window (and counts it). */
  const mayMail = (key: string): Promise<boolean> =>
    mails.consume(key).then(
      () => true,
      (error: unknown) => {
        ignoreSpent(error);
        return false;
      },
    );

  router.post('/auth/request-verification', sameOrigin, async (req, res) => {
    const token = sessionCookieOf(req);
    const session = token === undefined ? null : await deps.users.resolveSession(token, null);
    const user = session === null ? null : await deps.users.user(session.userId);
    if (user === null) {
      throw new ApiError(401, 'UNAUTHORIZED', 'This route needs a signed-in user', {
        suggestion: 'Log in with POST /auth/login and send its session cookie.',
      });
    }
    if (!user.emailVerified) {
      if (!(await mayMail(`verify:${user.id}`))) {
        throw new ApiError(429, 'RATE_LIMIT_EXCEEDED', 'Too many emails: try again later');
      }
      await deps.mail.sendVerification(user, requestIdOf(res));
    }
    res.json({ success: true });
  });

  router.post('/auth/verify-email', sameOrigin, json, async (req, res) => {
    const { token } = parse(tokenBody, req.body ?? {});
    await deps.awaitViews(await deps.mail.verifyEmail(token, requestIdOf(res)));
    res.json({ success: true });
  });

  router.post('/auth/request-password-reset', sameOrigin, json, async (req, res) => {
    const { email } = parse(resetRequestBody, req.body ?? {});
    const address = email.trim().toLowerCase();
    // The same answer whether the account exists or not, and whether an email went or not.
    if (await mayMail(`reset:${address}`)) {
      await deps.mail.requestPasswordReset(address, requestIdOf(res));
    }
    res.json({ success: true });
  });

  router.post('/auth/reset-password', sameOrigin, json, async (req, res) => {
    const body = parse(resetBody, req.body ?? {});
    await deps.awaitViews(
      await deps.mail.resetPassword(body.token, body.password, requestIdOf(res)),
    );
    res.json({ success: true });
  });

  router.get('/auth/logout', (_req, res) => {
    clearSessionCookie(res, deps.publicUrl);
    res.json({ success: true });
  });

  return router;
}

/** A limiter refusing a penalty past its points is expected: the next request gets the 429. */
function ignoreSpent(error: unknown): void {
  if (!(error instanceof RateLimiterRes)) throw error;
}
