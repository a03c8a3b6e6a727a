import { type Caller, type KeysApi, pathIsUnder } from '@stamp/contracts';
import {
  ApiError,
  normalisePath,
  notFound,
  requestIdOf,
  sessionCookieOf,
  setSessionCookie,
} from '@stamp/http-kit';
import type { NextFunction, Request, RequestHandler, Response } from 'express';

/**
 * POST paths a public (pk_) key may call (spec part 5 rule 2). `/events/track` is the dashboard's
 * alias and, like every other dashboard route, needs the secret key.
 */
export const PUBLIC_KEY_ROUTES: readonly string[] = ['/v1/track'];

const BEARER = /^Bearer[ \t]+([^\s]+)[ \t]*$/i;

/** Routes of the signed-in user, which name no project (spec part 4, "Users, projects"). */
export const USER_ROUTES: readonly string[] = ['/users/@me', '/users/@me/projects'];

/** The project named by the path: `/users/@me/projects/:id/…` and `/projects/:id/…`. */
const PROJECT_IN_PATH = /^\/(?:users\/@me\/)?projects\/([^/]+)(?:\/|$)/;

/** Methods that change nothing, which need no CSRF check. */
const SAFE_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Options of {@link authenticate}. */
export interface AuthenticateOptions {
  /** STAMP_PUBLIC_URL: the only `Origin` a state-changing cookie request may come from. */
  publicUrl: string;
}

/**
 * Authentication (spec part 5; API reference, "Errors" and "Dashboard authentication and
 * members"), setting `res.locals.caller` ({@link Caller}):
 * - `Authorization: Bearer <key>`, resolved with `keys.resolveKey`: 401 MISSING_AUTH without
 *   the header (and without a session cookie); 401 INVALID_API_KEY for a malformed header, an
 *   unknown key, or a public (pk_) key on every route but POST /v1/track.
 * - Otherwise the session cookie, resolved with `keys.resolveSession`, on every route but
 *   `/v1/*` (key-only): 401 UNAUTHORIZED for an invalid or expired session; 403 FORBIDDEN for a
 *   state-changing request whose `Origin` is not the public URL's (CSRF); the project is the
 *   path's (`/users/@me/projects/:id/…`, `/projects/:id/…`), else the `X-Project-Id` header
 *   (400 BAD_REQUEST without one), except on the user's own routes ({@link USER_ROUTES}); 404
 *   RESOURCE_NOT_FOUND when the user is not a member of it. A session due for renewal gets a
 *   fresh cookie.
 */
export function authenticate(keys: KeysApi, options: AuthenticateOptions): RequestHandler {
  const publicRoutes = new Set(PUBLIC_KEY_ROUTES);
  const userRoutes = new Set(USER_ROUTES);
  const publicOrigin = new URL(options.publicUrl).origin;
  return async (req: Request, res: Response, next: NextFunction) => {
    const header = req.get('authorization');
    const session = header === undefined ? sessionCookieOf(req) : undefined;
    const path = normalisePath(req.path);
    if (session !== undefined && !pathIsUnder(path, '/v1')) {
      if (!SAFE_METHODS.has(req.method) && req.get('origin') !== publicOrigin) {
        throw new ApiError(403, 'FORBIDDEN', 'Cross-site request refused', {
          suggestion: `Send requests with a session from ${publicOrigin}.`,
        });
      }
      const userRoute = userRoutes.has(path);
      const projectId = userRoute
        ? null
        : (PROJECT_IN_PATH.exec(path)?.[1] ?? req.get('x-project-id') ?? null);
      if (!userRoute && (projectId === null || projectId === '')) {
        throw new ApiError(400, 'BAD_REQUEST', 'Name the project of this request', {
          suggestion: 'Send the X-Project-Id header with the id of one of your projects.',
        });
      }
      const resolved = await keys.resolveSession(session, projectId);
      if (resolved === null) {
        throw new ApiError(401, 'UNAUTHORIZED', 'Your session is invalid or expired', {
          suggestion: 'Log in again with POST /auth/login.',
        });
      }
      if (projectId !== null && resolved.role === null) {
        throw notFound('RESOURCE_NOT_FOUND', 'Project not found');
      }
      if (resolved.renewed !== undefined) {
        setSessionCookie(res, resolved.renewed, options.publicUrl);
      }
      const value: Caller = {
        projectId: projectId ?? '',
        keyKind: 'secret',
        requestId: requestIdOf(res),
        userId: resolved.userId,
        ...(resolved.role === null ? {} : { role: resolved.role }),
      };
      (res.locals as { caller?: Caller }).caller = value;
      next();
      return;
    }
    if (header === undefined || header.trim() === '') {
      throw new ApiError(401, 'MISSING_AUTH', 'Missing Authorization header', {
        suggestion: 'Send Authorization: Bearer <API_KEY>, or log in for a session.',
      });
    }
    const token = BEARER.exec(header)?.[1];
    if (token === undefined) {
      throw new ApiError(401, 'INVALID_API_KEY', 'Malformed Authorization header', {
        suggestion: 'Send Authorization: Bearer <API_KEY>.',
      });
    }
    const resolved = await keys.resolveKey(token);
    if (resolved === null) {
      throw new ApiError(401, 'INVALID_API_KEY', 'Invalid API key', {
        suggestion: 'Check the key, or use the current keys of the project.',
      });
    }
    if (resolved.kind === 'public' && !(req.method === 'POST' && publicRoutes.has(path))) {
      throw new ApiError(
        401,
        'INVALID_API_KEY',
        'This endpoint requires a secret key (sk_); a public key (pk_) may only call POST /v1/track',
        { suggestion: 'Call this endpoint from your server with the secret key.' },
      );
    }
    const value: Caller = {
      projectId: resolved.projectId,
      keyKind: resolved.kind,
      requestId: requestIdOf(res),
    };
    (res.locals as { caller?: Caller }).caller = value;
    next();
  };
}
