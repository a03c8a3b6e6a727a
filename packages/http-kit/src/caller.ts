import type { Caller } from '@stamp/contracts';
import type { Response } from 'express';

import { ApiError } from './errors.ts';

/** The authenticated caller the gateway stored on `res.locals.caller`. */
export function caller(res: Response): Caller {
  const value = (res.locals as { caller?: Caller }).caller;
  if (value === undefined) throw new ApiError(401, 'MISSING_AUTH', 'Authentication required');
  return value;
}
