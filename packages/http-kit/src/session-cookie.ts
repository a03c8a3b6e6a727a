/**
 * The session cookie of the dashboard (spec part 5, item 7; API reference, "Dashboard
 * authentication"): `stamp_session`, HttpOnly, SameSite=Lax, Path=/, Secure when the public URL
 * is https, holding the session token (a JWT) for its lifetime.
 */
import { parse } from 'cookie';
import type { CookieOptions, Request, Response } from 'express';

/** Name of the session cookie. */
export const SESSION_COOKIE = 'stamp_session';

/** Lifetime of a session, ms (7 days): the token's and the cookie's. */
export const SESSION_TTL_MS = 7 * 24 * 3_600_000;

/**
 * The attributes of the platform's cookies for one answering at `publicUrl`: HttpOnly,
 * SameSite=Lax, Secure when `publicUrl` is https, sent back under `path`.
 */
export function cookieAttributes(publicUrl: string, path = '/'): CookieOptions {
  return {
    httpOnly: true,
    sameSite: 'lax',
    path,
    secure: publicUrl.startsWith('https:'),
  };
}

/** The non-empty value of the request's cookie `name`, or undefined. */
export function cookieOf(req: Request, name: string): string | undefined {
  const header = req.headers.cookie;
  if (header === undefined) return undefined;
  const value = parse(header)[name];
  return value === undefined || value === '' ? undefined : value;
}

/** Sets the session cookie to `token`. */
export function setSessionCookie(res: Response, token: string, publicUrl: string): void {
  res.cookie(SESSION_COOKIE, token, { ...cookieAttributes(publicUrl), maxAge: SESSION_TTL_MS });
}

/** Clears the session cookie. */
export function clearSessionCookie(res: Response, publicUrl: string): void {
  res.clearCookie(SESSION_COOKIE, cookieAttributes(publicUrl));
}

/** The session token of the request's cookie, or undefined. */
export function sessionCookieOf(req: Request): string | undefined {
  return cookieOf(req, SESSION_COOKIE);
}
