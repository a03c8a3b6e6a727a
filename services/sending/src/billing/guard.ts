/**
 * The check of the billing caps before an email is accepted (spec part 4, billing; API reference,
 * 402 BILLING_LIMIT_EXCEEDED): POST /v1/send counts as `transactional`, campaign emails as
 * `campaigns`, the emails of workflow steps as `workflows`, received mail as `inbound`.
 *
 * A send reserves its emails before it appends them: the emails of the period (the
 * `billingUsage` view) plus those reserved in this process must stay within the cap. A
 * reservation is held until the `sending-billing` projection has counted the append, then
 * dropped, so concurrent sends of one process never pass a cap together. Reservations of one
 * project, period and category are taken one at a time, and dropped only between two of them, so
 * a reservation never reads a count that is missing an email it no longer holds.
 *
 * Distributed mode: each sending process reserves on its own. A cap may then be passed by the
 * emails other processes accepted that the shared `billingUsage` view has not counted yet: at
 * most what the other processes accept during the projection's lag (typically well under a
 * second of their sending).
 */
import {
  BILLING_USAGE_VIEW,
  type BillingCategory,
  billingPeriodBounds,
  billingPeriodOf,
  type BillingUsageDocument,
  billingUsageId,
  usageOf,
} from '@stamp/contracts';
import { ApiError } from '@stamp/http-kit';
import type { Consumer, ViewStore } from '@stamp/platform';

import { BILLING_LIMITS_VIEW, type BillingLimitsDocument } from './projection.ts';

/** Emails reserved by one check; settle it once their append is done (or failed). */
export interface Reservation {
  /** Emails granted: all those asked for, or with `partial` as many as the cap leaves. */
  readonly granted: number;
  /**
   * With `partial`, the 402 BILLING_LIMIT_EXCEEDED of the emails not granted (to throw once the
   * granted ones are queued), or null when every email was granted.
   */
  readonly shortfall: ApiError | null;
  /**
   * The append of `used` of the granted emails (default all) ended at log position `position`:
   * the others are released at once, `used` once the projection has counted that position.
   * Settling again changes nothing.
   */
  settle(position: number, used?: number): void;
  /** Nothing was appended: releases every granted email. */
  release(): void;
}

/** The check of the caps (see the module comment). */
export interface BillingGuard {
  /**
   * Reserves `count` emails of `category` for `projectId` in the current period. With
   * `partial`, grants as many as the cap leaves (at least one).
   * @throws ApiError 402 BILLING_LIMIT_EXCEEDED when the cap leaves fewer than `count` (with
   *   `partial`: none).
   */
  reserve(
    projectId: string,
    category: BillingCategory,
    count: number,
    options?: { partial?: boolean },
  ): Promise<Reservation>;
  /** Whether the cap of `category` leaves `projectId` at least one email now (no reservation). */
  allows(projectId: string, category: BillingCategory): Promise<boolean>;
  /** Drops every reservation still held (the service stops; its projection is gone). */
  stop(): void;
}

/** Dependencies of {@link createBillingGuard}. */
export interface BillingGuardDeps {
  views: ViewStore;
  /** The `sending-billing` consumer of this process while the service runs, else undefined. */
  projection: () => Consumer | undefined;
  /** The clock (tests). */
  now?: () => Date;
}

/** How long one wait for the projection lasts before it is renewed, ms. */
const WAIT_SLICE_MS = 10_000;

/** A reservation that holds nothing (no cap, or nothing asked). */
const unheld = (granted: number): Reservation => ({
  granted,
  shortfall: null,
  settle: () => undefined,
  release: () => undefined,
});

/**
 * 402 BILLING_LIMIT_EXCEEDED for `requested` emails of `category` over `limit`, of which `used`
 * are taken in the period ending at `periodEnd`.
 */
export function limitExceeded(
  projectId: string,
  category: BillingCategory,
  limit: number,
  used: number,
  requested: number,
  periodEnd: string,
): ApiError {
  return new ApiError(
    402,
    'BILLING_LIMIT_EXCEEDED',
    `Billing limit exceeded: the project's ${category} cap is ${limit} emails per month ` +
      `(calendar month, UTC) and ${Math.min(used, limit)} are used; ${requested} more would pass it`,
    {
      suggestion:
        `Raise the cap with PUT /users/@me/projects/${projectId}/billing-limits, or wait for the ` +
        `next period (${periodEnd}).`,
      details: { category, limit, used, requested, periodEnd },
    },
  );
}

/** The guard over the billing views (see the module comment). */
export function createBillingGuard(deps: BillingGuardDeps): BillingGuard {
  const now = deps.now ?? (() => new Date());
  const limits = deps.views.collection<BillingLimitsDocument>(BILLING_LIMITS_VIEW);
  const usage = deps.views.collection<BillingUsageDocument>(BILLING_USAGE_VIEW);
  /** Emails reserved and not yet counted, by `<project>:<period>:<category>`. */
  const held = new Map<string, number>();
  /** The tail of the queue of each key's critical sections. */
  const queues = new Map<string, Promise<void>>();

  /** Runs `section` after the sections of `key` queued before it. */
  async function exclusive<T>(key: string, section: () => Promise<T> | T): Promise<T> {
    const before = queues.get(key) ?? Promise.resolve();
    let done: () => void = () => undefined;
    const mine = new Promise<void>((resolve) => {
      done = resolve;
    });
    const tail = before.then(() => mine);
    queues.set(key, tail);
    await before;
    try {
      return await section();
    } finally {
      done();
      if (queues.get(key) === tail) queues.delete(key);
    }
  }

  const add = (key: string, delta: number): void => {
    const next = (held.get(key) ?? 0) + delta;
    if (next > 0) held.set(key, next);
    else held.delete(key);
  };

  /**
   * Resolves once the projection of this process has handled `position`, or when there is no
   * projection (the service stopped: a stopped consumer's wait ends at once, before its time).
   */
  async function counted(position: number): Promise<void> {
    for (;;) {
      const projection = deps.projection();
      if (projection === undefined) return;
      const started = Date.now();
      if (await projection.waitFor(position, WAIT_SLICE_MS)) return;
      if (Date.now() - started < WAIT_SLICE_MS / 2) return;
    }
  }

  async function capOf(projectId: string, category: BillingCategory): Promise<number | null> {
    const found = await limits.findOne({ _id: projectId });
    return found?.limits[category] ?? null;
  }

  async function usedOf(projectId: string, period: string, category: BillingCategory) {
    const found = await usage.findOne({ _id: billingUsageId(projectId, period) });
    return usageOf(found)[category];
  }

  return {
    async reserve(projectId, category, count, options = {}) {
      if (count <= 0) return unheld(0);
      const limit = await capOf(projectId, category);
      if (limit === null) return unheld(count);
      const period = billingPeriodOf(now());
      const key = `${projectId}:${period}:${category}`;
      const { granted, shortfall } = await exclusive(key, async () => {
        const used = (await usedOf(projectId, period, category)) + (held.get(key) ?? 0);
        const left = Math.max(0, limit - used);
        const grant = options.partial === true ? Math.min(count, left) : count <= left ? count : 0;
        const refusal = (requested: number): ApiError =>
          limitExceeded(
            projectId,
            category,
            limit,
            used + grant,
            requested,
            billingPeriodBounds(period).end,
          );
        if (grant === 0) throw refusal(count);
        add(key, grant);
        return { granted: grant, shortfall: grant < count ? refusal(count - grant) : null };
      });
      let settled = false;
      const settle = (position: number, used = granted): void => {
        if (settled) return;
        settled = true;
        const kept = Math.max(0, Math.min(used, granted));
        add(key, kept - granted);
        if (kept === 0) return;
        if (position <= 0) {
          add(key, -kept);
          return;
        }
        const drop = (): void => {
          add(key, -kept);
        };
        // A failed wait drops the reservation too: a stuck reservation would refuse sends forever.
        void counted(position)
          .then(() => exclusive(key, drop))
          .catch(drop);
      };
      return {
        granted,
        shortfall,
        settle,
        release: () => {
          settle(0, 0);
        },
      };
    },
    async allows(projectId, category) {
      const limit = await capOf(projectId, category);
      if (limit === null) return true;
      const period = billingPeriodOf(now());
      const key = `${projectId}:${period}:${category}`;
      return (await usedOf(projectId, period, category)) + (held.get(key) ?? 0) < limit;
    },
    stop() {
      held.clear();
    },
  };
}
