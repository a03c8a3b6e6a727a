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
 * - `GET /auth/logout` → 200 `{success: true}`, and the cookie cleared.
 * A sign-up or login posted by a browser from another origin than the public URL's is refused
 * with 403 FORBIDDEN (login CSRF).
 */
import {
  ApiError,
  clearSessionCookie,
  clientAddressOf,
  emailAddress,
  parse,
  requestIdOf,
  setSessionCookie,
} from '@stamp/http-kit';
import express, { type RequestHandler, type Response, Router } from 'express';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { z } from 'zod';

import type { UsersApi } from '../users/commands.ts';
import { PASSWORD_LENGTH } from '../users/passwords.ts';

/** Dependencies of {@link authRouter}. */
export interface AuthRouterDeps {
  users: UsersApi;
  /** STAMP_PUBLIC_URL: the cookie is Secure when it is https. */
  publicUrl: string;
}

/** Failed logins allowed per email, and per client address, in {@link LOGIN_WINDOW_S}. */
export const LOGIN_FAILURES = { perEmail: 10, perAddress: 30 } as const;

/** The window of failed logins, seconds (15 minutes). */
export const LOGIN_WINDOW_S = 15 * 60;

const password = z.string().min(PASSWORD_LENGTH.min).max(PASSWORD_LENGTH.max);
const signupBody = z.object({
  email: emailAddress,
  password,
  name: z.string().trim().min(1).max(100).optional(),
});
const loginBody = z.object({
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
