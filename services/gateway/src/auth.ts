import type { Caller, KeysApi } from '@stamp/contracts';
import { ApiError, normalisePath, requestIdOf } from '@stamp/http-kit';
import type { NextFunction, Request, RequestHandler, Response } from 'express';

/**
 * POST paths a public (pk_) key may call (spec part 5 rule 2). `/events/track` is the dashboard's
 * alias and, like every other dashboard route, needs the secret key.
 */
export const PUBLIC_KEY_ROUTES: readonly string[] = ['/v1/track'];

const BEARER = /^Bearer[ \t]+([^\s]+)[ \t]*$/i;

/**
 * API-key authentication (spec part 5, API reference "Errors"): reads `Authorization: Bearer
 * <key>` and resolves it with `keys.resolveKey`, then sets `res.locals.caller` ({@link Caller}).
 * @throws ApiError 401 MISSING_AUTH without the header; 401 INVALID_API_KEY for a malformed
 *   header, an unknown key, or a public (pk_) key on any route but POST /v1/track.
 */
export function authenticate(keys: KeysApi): RequestHandler {
  const publicRoutes = new Set(PUBLIC_KEY_ROUTES);
  return async (req: Request, res: Response, next: NextFunction) => {
    const header = req.get('authorization');
    if (header === undefined || header.trim() === '') {
      throw new ApiError(401, 'MISSING_AUTH', 'Missing Authorization header', {
        suggestion: 'Send Authorization: Bearer <API_KEY>.',
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
    if (
      resolved.kind === 'public' &&
      !(req.method === 'POST' && publicRoutes.has(normalisePath(req.path)))
    ) {
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
