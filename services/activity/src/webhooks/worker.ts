/**
 * The delivery worker of webhook endpoints (API reference, "Webhook endpoints"; Standard Webhooks
 * specification): posts due deliveries, signed with the endpoint's key, and records each attempt.
 *
 * - One worker at a time holds the lease `webhook-deliveries`; it polls the due PENDING
 *   deliveries and keeps up to `maxInFlight` attempts running, at most `perEndpoint` per endpoint,
 *   so that a slow endpoint does not hold up the others.
 * - An attempt posts the body with `webhook-id` (the delivery id, the same on every attempt),
 *   `webhook-timestamp` (seconds) and `webhook-signature` (`v1,<base64 HMAC-SHA256>`), signed
 *   by the `standardwebhooks` library. The target goes through the private-address guard of
 *   `callWebhook`. A 2xx answer succeeds; every other answer, a timeout or a network error fails.
 * - A failed attempt is retried after {@link RETRY_DELAYS_MS} (5 s, 5 min, 30 min, 2 h, 5 h,
 *   10 h, 10 h: eight attempts over 27.6 hours), then the delivery is FAILED. A retry asked for
 *   by hand is one attempt.
 * - Finished deliveries stay in the log for {@link LOG_RETENTION_MS} (30 days).
 * - An endpoint's first failure since its last success starts its failing time; a success ends
 *   it and makes the endpoint's waiting deliveries due at once (it is back). An endpoint failing
 *   for `disableAfterMs` (default 5 days) is disabled (WebhookEndpointDisabled) and its waiting
 *   deliveries FAILED.
 */
import { randomUUID } from 'node:crypto';

import {
  callWebhook,
  Lease,
  type LeaseStore,
  type Logger,
  type Resolver,
  type Secrets,
  type ViewDocument,
  type ViewStore,
  WebhookError,
} from '@stamp/platform';
import { Webhook } from 'standardwebhooks';

import {
  ATTEMPT_LOG_SIZE,
  type DeliveryAttempt,
  WEBHOOK_DELIVERIES,
  type WebhookDeliveryDocument,
} from './deliveries.ts';
import {
  openSecret,
  WEBHOOK_ENDPOINTS,
  type WebhookEndpointCommands,
  type WebhookEndpointDocument,
} from './endpoints.ts';

/** Waits before the 2nd, 3rd, … 8th attempt of a delivery, ms (27 h 35 min 5 s in all). */
export const RETRY_DELAYS_MS: readonly number[] = [
  5_000,
  5 * 60_000,
  30 * 60_000,
  2 * 3_600_000,
  5 * 3_600_000,
  10 * 3_600_000,
  10 * 3_600_000,
];

/** Failing time after which an endpoint is disabled, ms (5 days). */
export const DISABLE_AFTER_MS = 5 * 24 * 3_600_000;

/** How long finished deliveries stay in the log, ms (30 days). */
export const LOG_RETENTION_MS = 30 * 24 * 3_600_000;

/** How often finished deliveries past {@link LOG_RETENTION_MS} are deleted, ms (1 hour). */
const PRUNE_EVERY_MS = 3_600_000;

/** View collection of the endpoints' failing times (`_id`: endpoint id). */
export const WEBHOOK_ENDPOINT_HEALTH = 'webhookEndpointHealth';

/** A document of {@link WEBHOOK_ENDPOINT_HEALTH}. */
interface HealthDocument extends ViewDocument {
  /** First failure since the last success, epoch ms; null while it succeeds. */
  failingSince: number | null;
}

/** Options of {@link WebhookDeliveryWorker}. */
export interface DeliveryWorkerOptions {
  views: ViewStore;
  leases: LeaseStore;
  secrets: Secrets;
  /** Resolves endpoint host names (the private-address guard checks what it answers). */
  resolver: Resolver;
  /** STAMP_ALLOW_PRIVATE_TARGETS. */
  allowPrivateTargets: boolean;
  commands: WebhookEndpointCommands;
  logger: Logger;
  /** Clock, epoch ms (tests). */
  now?: () => number;
  /** Poll of due deliveries, ms (default 250). */
  intervalMs?: number;
  /** Limit of one attempt, ms (default 15 000). */
  timeoutMs?: number;
  /** Waits between attempts, ms (default {@link RETRY_DELAYS_MS}). */
  retryDelaysMs?: readonly number[];
  /** Failing time that disables an endpoint, ms (default {@link DISABLE_AFTER_MS}). */
  disableAfterMs?: number;
  /** Attempts running at once (default 64). */
  maxInFlight?: number;
  /** Attempts running at once to one endpoint (default 16). */
  perEndpoint?: number;
}

/** A due delivery read by the worker, with its endpoint as read then. */
interface Queued {
  delivery: WebhookDeliveryDocument;
  endpoint: WebhookEndpointDocument | undefined;
}

/** Most due deliveries read by one poll. */
const POLL_BATCH = 500;

/** The lease of the delivery worker. */
export const DELIVERY_LEASE = 'webhook-deliveries';

const LEASE_TTL_MS = 10_000;

/** Posts due deliveries while holding {@link DELIVERY_LEASE} (see the module comment). */
export class WebhookDeliveryWorker {
  private readonly options: DeliveryWorkerOptions;
  private readonly lease: Lease;
  private readonly now: () => number;
  private readonly retryDelaysMs: readonly number[];
  private readonly inFlight = new Map<string, Promise<void>>();
  /** Due deliveries read but not started yet, with their endpoints as read. */
  private queue: Queued[] = [];
  private readonly maxInFlight: number;
  /** The endpoints' failing times (epoch ms, null: succeeding), as this worker last wrote them. */
  private readonly failing = new Map<string, number | null>();
  private readonly perEndpoint = new Map<string, number>();
  private readonly signers = new Map<string, { sealed: string; webhook: Webhook }>();
  private timer: NodeJS.Timeout | undefined;
  private polling: Promise<void> | undefined;
  private again = false;
  /** When old deliveries were last deleted, epoch ms. */
  private prunedAt = 0;
  private stopped = true;

  constructor(options: DeliveryWorkerOptions) {
    this.options = options;
    this.lease = new Lease(options.leases, DELIVERY_LEASE, randomUUID(), LEASE_TTL_MS);
    this.now = options.now ?? Date.now;
    this.retryDelaysMs = options.retryDelaysMs ?? RETRY_DELAYS_MS;
    this.maxInFlight = options.maxInFlight ?? 64;
  }

  /** Starts polling. */
  start(): void {
    this.stopped = false;
    this.timer = setInterval(() => {
      this.nudge();
    }, this.options.intervalMs ?? 250);
  }

  /** Looks for due deliveries now (new deliveries were added). */
  nudge(): void {
    if (this.stopped) return;
    if (this.polling !== undefined) {
      this.again = true;
      return;
    }
    this.polling = this.poll()
      .catch((error: unknown) => {
        this.options.logger.error({ err: error }, 'webhook deliveries could not be polled');
      })
      .finally(() => {
        this.polling = undefined;
        if (this.again) {
          this.again = false;
          this.nudge();
        }
      });
  }

  /** Stops polling, waits for the attempts in flight and gives the lease up. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.polling;
    this.queue = [];
    await Promise.all(this.inFlight.values());
    await this.lease.release();
  }

  /** Attempts running now (tests, benchmarks). */
  get running(): number {
    return this.inFlight.size;
  }

  /**
   * Reads due deliveries into the queue when it runs low (at most {@link POLL_BATCH} at a time,
   * those already queued or running left out), with their endpoints, then starts attempts.
   */
  private async poll(): Promise<void> {
    const { views } = this.options;
    if (this.queue.length >= this.maxInFlight) {
      this.pump();
      return;
    }
    if (!(await this.lease.held())) return;
    // Another worker may have held the lease since: failing times are read afresh.
    this.failing.clear();
    await this.prune();
    const due = await views
      .collection<WebhookDeliveryDocument>(WEBHOOK_DELIVERIES)
      .find(
        { status: 'PENDING', nextAttemptAt: { $lte: this.now() } },
        { sort: { nextAttemptAt: 1 }, limit: POLL_BATCH },
      );
    const queued = new Set(this.queue.map((item) => item.delivery._id));
    const fresh = due.filter(
      (delivery) => !this.inFlight.has(delivery._id) && !queued.has(delivery._id),
    );
    if (fresh.length > 0) {
      const endpointIds = [...new Set(fresh.map((delivery) => delivery.endpointId))];
      const endpoints = new Map(
        (
          await views
            .collection<WebhookEndpointDocument>(WEBHOOK_ENDPOINTS)
            .find({ _id: { $in: endpointIds } })
        ).map((endpoint) => [endpoint._id, endpoint]),
      );
      for (const delivery of fresh) {
        this.queue.push({ delivery, endpoint: endpoints.get(delivery.endpointId) });
      }
    }
    this.pump();
  }

  /** Deletes the finished deliveries older than {@link LOG_RETENTION_MS}, once an hour. */
  private async prune(): Promise<void> {
    const now = this.now();
    if (now - this.prunedAt < PRUNE_EVERY_MS) return;
    this.prunedAt = now;
    const before = new Date(now - LOG_RETENTION_MS).toISOString();
    await this.options.views
      .collection(WEBHOOK_DELIVERIES)
      .deleteMany({ createdAt: { $lt: before }, status: { $in: ['SUCCEEDED', 'FAILED'] } });
  }

  /**
   * Starts queued attempts while fewer than `maxInFlight` run, at most `perEndpoint` per
   * endpoint (the others stay queued, in order); asks for a poll when the queue runs low.
   */
  private pump(): void {
    if (this.stopped) return;
    const limit = this.options.perEndpoint ?? 16;
    const waiting: Queued[] = [];
    for (const item of this.queue) {
      const { delivery } = item;
      const running = this.perEndpoint.get(delivery.endpointId) ?? 0;
      if (this.inFlight.size >= this.maxInFlight || running >= limit) {
        waiting.push(item);
        continue;
      }
      this.perEndpoint.set(delivery.endpointId, running + 1);
      const attempt = this.attempt(delivery, item.endpoint)
        .catch((error: unknown) => {
          this.options.logger.error({ err: error, deliveryId: delivery._id }, 'webhook attempt');
        })
        .finally(() => {
          this.inFlight.delete(delivery._id);
          const left = (this.perEndpoint.get(delivery.endpointId) ?? 1) - 1;
          if (left > 0) this.perEndpoint.set(delivery.endpointId, left);
          else this.perEndpoint.delete(delivery.endpointId);
          if (this.stopped) return;
          if (this.queue.length < this.maxInFlight) this.nudge();
          else this.pump();
        });
      this.inFlight.set(delivery._id, attempt);
    }
    this.queue = waiting;
  }

  /** One attempt of `delivery`, recorded on it. */
  private async attempt(
    delivery: WebhookDeliveryDocument,
    endpoint: WebhookEndpointDocument | undefined,
  ): Promise<void> {
    const deliveries = this.options.views.collection<WebhookDeliveryDocument>(WEBHOOK_DELIVERIES);
    const current = { _id: delivery._id, attempts: delivery.attempts, status: 'PENDING' };
    if (endpoint === undefined || endpoint.deleted) {
      // The log goes with its endpoint.
      await deliveries.deleteOne({ _id: delivery._id });
      return;
    }
    if (!endpoint.enabled) {
      await deliveries.updateOne(current, {
        $set: { status: 'FAILED', nextAttemptAt: null, lastError: 'the endpoint is disabled' },
      });
      return;
    }

    const startedAt = this.now();
    const started = performance.now();
    const outcome = await this.post(delivery, endpoint, startedAt);
    const entry: DeliveryAttempt = {
      attemptedAt: new Date(startedAt).toISOString(),
      latencyMs: Math.round(performance.now() - started),
      ...(outcome.statusCode === undefined ? {} : { statusCode: outcome.statusCode }),
      ...(outcome.error === undefined ? {} : { error: outcome.error }),
    };
    const attempts = delivery.attempts + 1;
    const succeeded = outcome.error === undefined;
    const delay = this.retryDelaysMs[attempts - 1];
    const retry = !succeeded && !delivery.manual && delay !== undefined;
    await deliveries.updateOne(current, {
      $set: {
        status: succeeded ? 'SUCCEEDED' : retry ? 'PENDING' : 'FAILED',
        attempts,
        lastStatusCode: outcome.statusCode ?? null,
        lastLatencyMs: entry.latencyMs,
        lastError: outcome.error ?? null,
        nextAttemptAt: retry ? this.now() + delay : null,
        manual: false,
        log: [...delivery.log, entry].slice(-ATTEMPT_LOG_SIZE),
      },
    });
    await this.recordHealth(endpoint, succeeded, startedAt, delivery._id);
  }

  /** Posts the delivery's body, signed; `error` when it did not succeed. */
  private async post(
    delivery: WebhookDeliveryDocument,
    endpoint: WebhookEndpointDocument,
    at: number,
  ): Promise<{ statusCode?: number; error?: string }> {
    try {
      const webhook = this.signer(endpoint);
      const timestamp = new Date(at);
      const headers = {
        'content-type': 'application/json',
        'webhook-id': delivery._id,
        'webhook-timestamp': String(Math.floor(at / 1000)),
        'webhook-signature': webhook.sign(delivery._id, timestamp, delivery.body),
      };
      const answer = await callWebhook(
        { url: endpoint.url, method: 'POST', headers, body: delivery.body },
        {
          resolver: this.options.resolver,
          allowPrivateTargets: this.options.allowPrivateTargets,
          idempotencyKey: delivery._id,
          attempts: 1,
          timeoutMs: this.options.timeoutMs ?? 15_000,
          maxResponseBytes: 1024,
        },
      );
      if (answer.status >= 200 && answer.status <= 299) return { statusCode: answer.status };
      return { statusCode: answer.status, error: `answered ${answer.status}` };
    } catch (error) {
      if (error instanceof WebhookError) {
        return {
          ...(error.status === null ? {} : { statusCode: error.status }),
          error: error.message,
        };
      }
      return { error: error instanceof Error ? error.message : String(error) };
    }
  }

  /** The Standard Webhooks signer of `endpoint`, kept while its key is unchanged. */
  private signer(endpoint: WebhookEndpointDocument): Webhook {
    const kept = this.signers.get(endpoint._id);
    if (kept?.sealed === endpoint.secret) return kept.webhook;
    const webhook = new Webhook(openSecret(this.options.secrets, endpoint));
    this.signers.set(endpoint._id, { sealed: endpoint.secret, webhook });
    return webhook;
  }

  /**
   * Keeps the endpoint's failing time: a success clears it and, if it was failing, makes its
   * waiting deliveries due now; a failure starts it, and one that lasted `disableAfterMs`
   * disables the endpoint.
   */
  private async recordHealth(
    endpoint: WebhookEndpointDocument,
    succeeded: boolean,
    at: number,
    causeId: string,
  ): Promise<void> {
    const { views } = this.options;
    const health = views.collection<HealthDocument>(WEBHOOK_ENDPOINT_HEALTH);
    const deliveries = views.collection<WebhookDeliveryDocument>(WEBHOOK_DELIVERIES);
    let failingSince = this.failing.get(endpoint._id);
    if (failingSince === undefined) {
      failingSince = (await health.findOne({ _id: endpoint._id }))?.failingSince ?? null;
      this.failing.set(endpoint._id, failingSince);
    }
    if (succeeded) {
      if (failingSince === null) return;
      this.failing.set(endpoint._id, null);
      await health.updateOne({ _id: endpoint._id }, { $set: { failingSince: null } });
      await deliveries.updateMany(
        { endpointId: endpoint._id, status: 'PENDING', nextAttemptAt: { $gt: at } },
        { $set: { nextAttemptAt: this.now() } },
      );
      this.nudge();
      return;
    }
    if (failingSince === null) {
      this.failing.set(endpoint._id, at);
      await health.updateOne(
        { _id: endpoint._id },
        { $set: { failingSince: at } },
        { upsert: true },
      );
      if ((this.options.disableAfterMs ?? DISABLE_AFTER_MS) > 0) return;
    }
    const since = failingSince ?? at;
    if (at - since < (this.options.disableAfterMs ?? DISABLE_AFTER_MS)) return;
    const sinceIso = new Date(since).toISOString();
    const reason = `every delivery failed since ${sinceIso}`;
    await this.options.commands.disable(
      { projectId: endpoint.projectId, correlationId: causeId },
      endpoint._id,
      sinceIso,
      reason,
    );
    this.failing.set(endpoint._id, null);
    await health.updateOne({ _id: endpoint._id }, { $set: { failingSince: null } });
    await deliveries.updateMany(
      { endpointId: endpoint._id, status: 'PENDING' },
      { $set: { status: 'FAILED', nextAttemptAt: null, lastError: 'the endpoint is disabled' } },
    );
  }
}
