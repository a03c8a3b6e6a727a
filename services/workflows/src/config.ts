/**
 * The workflows service's configuration variables (API reference, "Configuration names of the
 * coming features"), shared by the embedded platform and the workflows process.
 */
import type { Resolver } from '@stamp/platform';
import { z } from 'zod';

import type { WebhookCaller } from './executions/engine.ts';
import { callWebhook } from './executions/webhook.ts';

/**
 * `STAMP_ALLOW_PRIVATE_TARGETS`: `true` lets WEBHOOK steps reach loopback, private and link-local
 * addresses; otherwise such a target, by literal address or by a name resolving to one, is
 * refused (default `false`).
 */
export const workflowsEnv = {
  STAMP_ALLOW_PRIVATE_TARGETS: z.enum(['true', 'false']).default('false'),
};

/**
 * WEBHOOK steps' requests through `resolver` (10 s per attempt, 3 attempts, backoff from 500 ms).
 */
export function webhookCaller(resolver: Resolver, allowPrivateTargets: boolean): WebhookCaller {
  return async (call, idempotencyKey) => {
    const answer = await callWebhook(call, { resolver, allowPrivateTargets, idempotencyKey });
    return { status: answer.status, body: answer.body };
  };
}
