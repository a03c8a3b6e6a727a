/**
 * Billing of projects (spec part 4 "Users, projects, configuration"; API reference, "Enums":
 * billing categories): monthly caps per category of email, and the consumption of the current
 * period that they are checked against. Shared by the accounts service (which records the caps on
 * the project streams and answers the consumption) and the sending service (which counts the
 * emails it accepts and refuses those that would pass a cap with 402 BILLING_LIMIT_EXCEEDED).
 *
 * A period is a calendar month in UTC: it starts on the 1st at 00:00:00.000Z and ends before the
 * 1st of the next month. An email counts in the period of the time it was accepted (the append
 * of its `EmailQueued`, or of `EmailReceived` for inbound mail).
 */

/** The billing categories, in the order the API lists them. */
export const BILLING_CATEGORIES = ['transactional', 'campaigns', 'workflows', 'inbound'] as const;

/**
 * A billing category: `transactional` (POST /v1/send, campaign test emails), `campaigns`
 * (campaign emails), `workflows` (emails of SEND_EMAIL steps), `inbound` (mail received for the
 * project's domains). Account mail (verification, password reset, invitation) counts in none.
 */
export type BillingCategory = (typeof BILLING_CATEGORIES)[number];

/** A cap per category: the most emails of a period, an integer ≥ 0, or null for no cap. */
export type BillingLimits = Record<BillingCategory, number | null>;

/** Emails counted per category in one period. */
export type BillingUsage = Record<BillingCategory, number>;

/** No cap in every category (a new project's caps). */
export const NO_BILLING_LIMITS: Readonly<BillingLimits> = {
  transactional: null,
  campaigns: null,
  workflows: null,
  inbound: null,
};

/**
 * Metadata key of the billing category of an `EmailQueued` or `EmailReceived` event. Metadata
 * stays readable when the event's data is erased with its contact, so a rebuilt usage view counts
 * erased emails in their category.
 */
export const BILLING_CATEGORY_METADATA = 'billingCategory';

/** The period (`YYYY-MM`, UTC) that `at` falls in. */
export function billingPeriodOf(at: Date): string {
  return at.toISOString().slice(0, 7);
}

/**
 * The bounds of `period` (`YYYY-MM`): ISO 8601 UTC times of its first instant (`start`,
 * inclusive) and of the next period's first instant (`end`, exclusive).
 */
export function billingPeriodBounds(period: string): { start: string; end: string } {
  const [year = 1970, month = 1] = period.split('-').map(Number);
  return {
    start: new Date(Date.UTC(year, month - 1, 1)).toISOString(),
    end: new Date(Date.UTC(year, month, 1)).toISOString(),
  };
}

/** Whether `value` is a billing category. */
export function isBillingCategory(value: unknown): value is BillingCategory {
  return (BILLING_CATEGORIES as readonly unknown[]).includes(value);
}

/**
 * The category of an email queued with these fields: `campaigns` with a campaign id, `workflows`
 * with a workflow id, else `transactional`.
 */
export function categoryOfQueued(data: {
  campaignId?: unknown;
  workflowId?: unknown;
}): BillingCategory {
  if (typeof data.campaignId === 'string' && data.campaignId !== '') return 'campaigns';
  if (typeof data.workflowId === 'string' && data.workflowId !== '') return 'workflows';
  return 'transactional';
}

/**
 * The category an event counts in, or null when it counts in none: `EmailQueued` (topic `email`)
 * by its {@link BILLING_CATEGORY_METADATA} metadata, else by its data (events recorded before the
 * metadata existed; null when such an event was erased), and `EmailReceived` (topic
 * `inboundEmail`) as `inbound`.
 */
export function billingCategoryOf(event: {
  streamId: string;
  type: string;
  data: unknown;
  metadata: Readonly<Record<string, string | undefined>>;
  erased?: boolean;
}): BillingCategory | null {
  const isEmail = event.streamId.startsWith('email-');
  const isInbound = event.streamId.startsWith('inboundEmail-');
  if (isEmail && event.type === 'EmailQueued') {
    const recorded = event.metadata[BILLING_CATEGORY_METADATA];
    if (isBillingCategory(recorded)) return recorded;
    if (event.erased === true || event.data === null || typeof event.data !== 'object') return null;
    return categoryOfQueued(event.data);
  }
  if (isInbound && event.type === 'EmailReceived') return 'inbound';
  return null;
}

/**
 * Collection of the consumption per project and period (owner: sending service, consumer group
 * `sending-billing`); the accounts service answers `GET …/billing-consumption` from it.
 */
export const BILLING_USAGE_VIEW = 'billingUsage';

/** A document of {@link BILLING_USAGE_VIEW}: `_id` is {@link billingUsageId}. */
export interface BillingUsageDocument extends Partial<BillingUsage> {
  _id: string;
  [field: string]: unknown;
  projectId: string;
  /** `YYYY-MM`, UTC. */
  period: string;
}

/** The id of the usage document of `projectId` in `period`. */
export const billingUsageId = (projectId: string, period: string): string =>
  `${projectId}:${period}`;

/** The counts of a usage document (0 for a category without one, or without a document). */
export function usageOf(document: Partial<BillingUsage> | null): BillingUsage {
  return {
    transactional: document?.transactional ?? 0,
    campaigns: document?.campaigns ?? 0,
    workflows: document?.workflows ?? 0,
    inbound: document?.inbound ?? 0,
  };
}

/**
 * Data of `BillingLimitsChanged` (topic `project`, owner accounts): the caps in force from now
 * (`limits`: per category the lower of the caps set by hand and the plan's), the caps set by hand
 * (`manual`, `PUT …/billing-limits`), the caps of the active subscription's plan (`plan`, null
 * without one), and what changed them.
 */
export interface BillingLimitsChangedEventData {
  limits: BillingLimits;
  manual: BillingLimits;
  plan: BillingLimits | null;
  source: 'MANUAL' | 'SUBSCRIPTION';
  /** ISO 8601 time of the change. */
  changedAt: string;
}
