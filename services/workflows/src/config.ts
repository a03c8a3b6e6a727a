/**
 * The workflows service's WEBHOOK step caller, shared by the embedded platform and the workflows
 * process.
 */
import { callWebhook, type Resolver } from '@stamp/platform';

import type { WebhookCaller } from './executions/engine.ts';

/**
 * WEBHOOK steps' requests through `resolver` (10 s per attempt, 3 attempts, backoff from 500 ms).
 */
export function webhookCaller(resolver: Resolver, allowPrivateTargets: boolean): WebhookCaller {
  return async (call, idempotencyKey) => {
    const answer = await callWebhook(call, { resolver, allowPrivateTargets, idempotencyKey });
    return { status: answer.status, body: answer.body };
  };
}
