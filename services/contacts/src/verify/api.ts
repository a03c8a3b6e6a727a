import type { Resolver } from '@stamp/platform';
import { emailAddress, parse } from '@stamp/http-kit';
import { Router } from 'express';
import { z } from 'zod';

import { verifyEmail } from './verify.ts';

/** Dependencies of {@link createVerifyRouter}. */
export interface VerifyRouterDeps {
  /** DNS look-ups (NS, MX, A, AAAA) of the address's domain. */
  resolver: Resolver;
}

/** Body of POST /v1/verify. */
export const VerifyBody = z.object({
  email: z.string().trim().pipe(emailAddress),
});

/**
 * Routes of email verification (spec part 4 "POST /v1/verify"): `POST /v1/verify` with body
 * `{ email }` answers 200 `{ success: true, data: VerificationResult }`.
 * @throws ApiError 422 VALIDATION_ERROR when `email` is missing or not an email address.
 */
export function createVerifyRouter(deps: VerifyRouterDeps): Router {
  const router = Router();
  router.post('/v1/verify', async (req, res) => {
    const body = parse(VerifyBody, req.body ?? {});
    const data = await verifyEmail(body.email, deps.resolver);
    res.status(200).json({ success: true, data });
  });
  return router;
}
