/**
 * Decisions about a project's billing (spec part 4, `PUT /users/@me/projects/:id/billing-limits`
 * and the payment provider's notifications). Pure: each takes the project state and answers the
 * events to append.
 *
 * The caps in force are, per category, the lower of the caps set by hand and the caps of the
 * active subscription's plan (null counts as no cap): a project's members may always lower their
 * caps, never pass their plan's. When the subscription ends, the caps set by hand apply again.
 */
import { BILLING_CATEGORIES, type BillingCategory, type BillingLimits } from '@stamp/contracts';

import { assertLiveProject, type ProjectState } from '../projects/events.ts';
import type { BillingEvent, SubscriptionData } from './events.ts';

/** Subscription statuses of the payment provider under which the plan's caps apply. */
export const ACTIVE_SUBSCRIPTION_STATUSES: readonly string[] = ['active', 'trialing', 'past_due'];

/** The lower of two caps, null being no cap. */
const lower = (a: number | null, b: number | null): number | null =>
  a === null ? b : b === null ? a : Math.min(a, b);

/** The caps in force for caps set by hand and a plan's (see the module comment). Pure. */
export function limitsInForce(manual: BillingLimits, plan: BillingLimits | null): BillingLimits {
  const entries = BILLING_CATEGORIES.map((category): [BillingCategory, number | null] => [
    category,
    lower(manual[category], plan === null ? null : plan[category]),
  ]);
  return Object.fromEntries(entries) as BillingLimits;
}

/** Whether two sets of caps are the same. */
export function sameLimits(a: BillingLimits | null, b: BillingLimits | null): boolean {
  if (a === null || b === null) return a === b;
  return BILLING_CATEGORIES.every((category) => a[category] === b[category]);
}

/**
 * Decides a change of the caps set by hand: the categories of `change` take their new cap (null:
 * no cap), the others keep theirs. One BillingLimitsChanged, or nothing when no cap changes.
 * @throws ApiError 404 RESOURCE_NOT_FOUND when the project does not exist or was deleted.
 */
export function setLimits(
  state: ProjectState,
  change: Partial<BillingLimits>,
  now: Date,
): BillingEvent[] {
  assertLiveProject(state);
  const manual: BillingLimits = { ...state.billing.manual };
  for (const category of BILLING_CATEGORIES) {
    const cap = change[category];
    if (cap !== undefined) manual[category] = cap;
  }
  if (sameLimits(manual, state.billing.manual)) return [];
  return [
    {
      type: 'BillingLimitsChanged',
      data: {
        limits: limitsInForce(manual, state.billing.plan),
        manual,
        plan: state.billing.plan,
        source: 'MANUAL',
        changedAt: now.toISOString(),
      },
    },
  ];
}

/** A subscription change as the payment provider reported it (see `SubscriptionData`). */
export type SubscriptionReport = Omit<SubscriptionData, 'active' | 'changedAt'>;

/**
 * Decides a report of the payment provider about the project's subscription: a
 * BillingSubscriptionChanged, then a BillingLimitsChanged when the plan's caps (the caps of
 * `plans[priceId]` while the subscription is active, else none) change the caps in force.
 * Nothing when the project does not exist or was deleted, when the report was already recorded,
 * when it is older than the last one recorded for the same subscription (the provider does not
 * keep the order of its events), or when it ends another subscription than the active one.
 */
export function applySubscription(
  state: ProjectState,
  report: SubscriptionReport,
  plans: Readonly<Record<string, BillingLimits>>,
  now: Date,
): BillingEvent[] {
  if (!state.exists || state.deleted) return [];
  const current = state.billing.subscription;
  const active = ACTIVE_SUBSCRIPTION_STATUSES.includes(report.status);
  if (current !== null) {
    if (current.eventId === report.eventId) return [];
    const same = current.subscriptionId === report.subscriptionId;
    if (same && report.eventCreatedAt < current.eventCreatedAt) return [];
    if (!same && current.active && !active) return [];
  }
  const events: BillingEvent[] = [
    {
      type: 'BillingSubscriptionChanged',
      data: { ...report, active, changedAt: now.toISOString() },
    },
  ];
  const planned = active && report.priceId !== null ? plans[report.priceId] : undefined;
  const plan = planned === undefined ? null : { ...planned };
  const limits = limitsInForce(state.billing.manual, plan);
  if (!sameLimits(plan, state.billing.plan) || !sameLimits(limits, state.billing.limits)) {
    events.push({
      type: 'BillingLimitsChanged',
      data: {
        limits,
        manual: state.billing.manual,
        plan,
        source: 'SUBSCRIPTION',
        changedAt: now.toISOString(),
      },
    });
  }
  return events;
}
