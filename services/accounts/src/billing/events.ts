/**
 * Billing events of the `project-<id>` streams (spec part 4, billing routes; API reference,
 * "Enums": billing categories): the caps in force and the subscription a payment provider
 * reports. They are part of the project stream's events (`ProjectEvent`) and fold into its
 * state's `billing`.
 */
import {
  type BillingLimits,
  type BillingLimitsChangedEventData,
  NO_BILLING_LIMITS,
} from '@stamp/contracts';

/**
 * The caps changed (by hand, or by a subscription of a plan): `limits` are in force from now
 * for every email the sending service accepts.
 */
export interface BillingLimitsChanged {
  type: 'BillingLimitsChanged';
  data: BillingLimitsChangedEventData;
}

/** What the payment provider reported about the project's subscription. */
export interface SubscriptionData {
  provider: 'stripe';
  /** Id of the provider's event (`evt_…`): the event id of this record is derived from it. */
  eventId: string;
  /** Its type, for example `customer.subscription.updated`. */
  eventType: string;
  /** ISO 8601 time the provider created its event: older reports never replace newer ones. */
  eventCreatedAt: string;
  /** The provider's customer (`cus_…`). */
  customerId: string;
  /** The subscription (`sub_…`), or null when the report names none. */
  subscriptionId: string | null;
  /** The subscribed price (`price_…`), or null when the report names none. */
  priceId: string | null;
  /** The provider's status of the subscription (`active`, `past_due`, `canceled`, …). */
  status: string;
  /** Whether the plan's caps apply (statuses `active`, `trialing`, `past_due`). */
  active: boolean;
  /** ISO 8601 time it was recorded. */
  changedAt: string;
}

/** The payment provider reported a change of the project's subscription. */
export interface BillingSubscriptionChanged {
  type: 'BillingSubscriptionChanged';
  data: SubscriptionData;
}

/** The billing events of a project stream. */
export type BillingEvent = BillingLimitsChanged | BillingSubscriptionChanged;

/** Event types of {@link BillingEvent}. */
export const BILLING_EVENT_TYPES: readonly string[] = [
  'BillingLimitsChanged',
  'BillingSubscriptionChanged',
];

/** The subscription as last reported. */
export interface SubscriptionState {
  customerId: string;
  subscriptionId: string | null;
  priceId: string | null;
  status: string;
  active: boolean;
  /** The provider event it was last reported by, and when that event was created (ISO 8601). */
  eventId: string;
  eventCreatedAt: string;
}

/** The billing of a project folded from its stream. */
export interface BillingState {
  /** Caps in force: per category the lower of `manual` and `plan` (null: no cap). */
  limits: BillingLimits;
  /** Caps set by hand (`PUT …/billing-limits`). */
  manual: BillingLimits;
  /** Caps of the active subscription's plan, or null without one. */
  plan: BillingLimits | null;
  /** The subscription as last reported, or null before the first report. */
  subscription: SubscriptionState | null;
  /** ISO 8601 time the caps last changed, or null when never. */
  updatedAt: string | null;
}

/** The billing of a project without billing events: no cap, no subscription. */
export const initialBillingState: BillingState = {
  limits: NO_BILLING_LIMITS,
  manual: NO_BILLING_LIMITS,
  plan: null,
  subscription: null,
  updatedAt: null,
};

/** Applies one billing event (pure). */
export function evolveBilling(state: BillingState, event: BillingEvent): BillingState {
  switch (event.type) {
    case 'BillingLimitsChanged':
      return {
        ...state,
        limits: event.data.limits,
        manual: event.data.manual,
        plan: event.data.plan,
        updatedAt: event.data.changedAt,
      };
    case 'BillingSubscriptionChanged':
      return {
        ...state,
        subscription: {
          customerId: event.data.customerId,
          subscriptionId: event.data.subscriptionId,
          priceId: event.data.priceId,
          status: event.data.status,
          active: event.data.active,
          eventId: event.data.eventId,
          eventCreatedAt: event.data.eventCreatedAt,
        },
      };
  }
}
