import type { Caller } from '@stamp/contracts';
import type { Request, Response } from 'express';

import { ApiError } from './errors.ts';

/** The authenticated caller the gateway stored on `res.locals.caller`. */
export function caller(res: Response): Caller {
  const value = (res.locals as { caller?: Caller }).caller;
  if (value === undefined) throw new ApiError(401, 'MISSING_AUTH', 'Authentication required');
  return value;
}

/**
 * The client's network address: as the gateway saw it on a request it forwarded (distributed
 * mode), else the socket's peer.
 */
export function clientAddressOf(req: Request, res: Response): string {
  const forwarded = (res.locals as { clientAddress?: string }).clientAddress;
  return forwarded ?? req.socket.remoteAddress ?? '';
}
