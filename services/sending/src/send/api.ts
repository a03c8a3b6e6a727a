import type { AwaitViews } from '@stamp/contracts';
import { caller, parse } from '@stamp/http-kit';
import { Router } from 'express';

import { send, type SendDeps } from './command.ts';
import { sendBody } from './schema.ts';

/**
 * POST /v1/send (spec part 4): answers 200 `{success: true, data: {emails: [{contact: {id,
 * email}, email}], timestamp}}` once the views reflect the send.
 */
export function sendRouter(deps: SendDeps & { awaitViews: AwaitViews }): Router {
  const router = Router();
  router.post('/v1/send', async (req, res) => {
    const who = caller(res);
    const body = parse(sendBody, req.body);
    const { position, ...data } = await send(deps, who, body);
    await deps.awaitViews(position);
    res.json({ success: true, data });
  });
  return router;
}
