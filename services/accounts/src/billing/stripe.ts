/**
 * The payment provider, Stripe, through its SDK (`stripe`): the client, the reading of its
 * webhook events into subscription reports, and how its errors are answered.
 *
 * Events read (others are acknowledged and ignored):
 * - `checkout.session.completed` of a subscription checkout created by `POST …/checkout`: the
 *   project is the session's `client_reference_id` (or `metadata.projectId`), the price its
 *   `metadata.priceId`; status `active` unless the session is still `unpaid`.
 * - `customer.subscription.created`, `.updated`, `.deleted`: the project is the subscription's
 *   `metadata.projectId` (set by the checkout), else the project whose customer it is; the price is
 *   the first item's; a deleted subscription reports its final status (`canceled`).
 */
import type { BillingLimits } from '@stamp/contracts';
import { ApiError } from '@stamp/http-kit';
import type Stripe from 'stripe';

import type { SubscriptionReport } from './decide.ts';

/** The Stripe settings (README "Configuration", "Billing"). */
export interface StripeSettings {
  /** `STAMP_STRIPE_SECRET_KEY`: the API key (`sk_…` or a restricted `rk_…`). */
  secretKey: string;
  /** `STAMP_STRIPE_WEBHOOK_SECRET`: the signing secret of the webhook endpoint (`whsec_…`). */
  webhookSecret: string;
  /** `STAMP_STRIPE_PRICE_ID`: the price a checkout subscribes to unless the request names one. */
  priceId: string;
  /** `STAMP_STRIPE_PLANS`: the caps of each price's plan, by price id. */
  plans: Readonly<Record<string, BillingLimits>>;
  /**
   * `STAMP_STRIPE_API_BASE`: where the SDK sends its requests (`protocol://host:port`), when not
   * Stripe's own API (a proxy, or a stand-in in tests).
   */
  apiBase?: string | undefined;
}

/** Time the SDK waits for an answer of Stripe's API, ms. */
const STRIPE_TIMEOUT_MS = 20_000;

/** The SDK, once a client was made (it is loaded on first use: billing is often off). */
let sdk: typeof Stripe | undefined;

/** A Stripe client with `settings` (one network retry, 20 s timeout); loads the SDK. */
export async function stripeClient(settings: StripeSettings): Promise<Stripe> {
  sdk ??= (await import('stripe')).default;
  const base = settings.apiBase === undefined ? undefined : new URL(settings.apiBase);
  const protocol = base?.protocol === 'http:' ? 'http' : 'https';
  return new sdk(settings.secretKey, {
    maxNetworkRetries: 1,
    timeout: STRIPE_TIMEOUT_MS,
    appInfo: { name: 'Stamp' },
    ...(base === undefined
      ? {}
      : {
          host: base.hostname,
          port: base.port === '' ? (protocol === 'http' ? 80 : 443) : Number(base.port),
          protocol,
        }),
  });
}

/** A webhook event read: the project it names (null: look it up by customer), and the report. */
export interface StripeNotice {
  projectId: string | null;
  report: SubscriptionReport;
}

/** The id of an expandable Stripe object (an id, or the object). */
function idOf(value: string | { id: string } | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  return typeof value === 'string' ? value : value.id;
}

/** A non-empty string, or null. */
const text = (value: unknown): string | null =>
  typeof value === 'string' && value !== '' ? value : null;

/**
 * The subscription report of a verified Stripe event (see the module comment), or null for an
 * event that says nothing about a subscription of Stamp's.
 */
export function readStripeEvent(event: Stripe.Event): StripeNotice | null {
  const common = {
    provider: 'stripe' as const,
    eventId: event.id,
    eventType: event.type,
    eventCreatedAt: new Date(event.created * 1000).toISOString(),
  };
  switch (event.type) {
    case 'checkout.session.completed': {
      const session = event.data.object;
      const customerId = idOf(session.customer);
      if (session.mode !== 'subscription' || customerId === null) return null;
      return {
        projectId: text(session.client_reference_id) ?? text(session.metadata?.projectId),
        report: {
          ...common,
          customerId,
          subscriptionId: idOf(session.subscription),
          priceId: text(session.metadata?.priceId),
          status: session.payment_status === 'unpaid' ? 'incomplete' : 'active',
        },
      };
    }
    case 'customer.subscription.created':
    case 'customer.subscription.updated':
    case 'customer.subscription.deleted': {
      const subscription = event.data.object;
      const customerId = idOf(subscription.customer);
      if (customerId === null) return null;
      return {
        projectId: text(subscription.metadata.projectId),
        report: {
          ...common,
          customerId,
          subscriptionId: subscription.id,
          priceId: text(subscription.items.data[0]?.price.id),
          status: event.type === 'customer.subscription.deleted' ? 'canceled' : subscription.status,
        },
      };
    }
    default:
      return null;
  }
}

/**
 * The answer to a failed call of Stripe's API: 502 BAD_GATEWAY, saying whether Stripe could not
 * be reached or what it refused (never the API key).
 */
export function stripeFailure(error: unknown): ApiError {
  // Without a client, nothing of Stripe's failed.
  if (sdk === undefined) {
    return new ApiError(502, 'BAD_GATEWAY', 'The payment provider answered unexpectedly');
  }
  if (error instanceof sdk.errors.StripeConnectionError) {
    return new ApiError(502, 'BAD_GATEWAY', 'The payment provider could not be reached', {
      suggestion: 'Retry shortly.',
    });
  }
  if (error instanceof sdk.errors.StripeAuthenticationError) {
    return new ApiError(502, 'BAD_GATEWAY', 'The payment provider refused the configured API key');
  }
  if (error instanceof sdk.errors.StripeError) {
    return new ApiError(502, 'BAD_GATEWAY', `The payment provider refused: ${error.message}`);
  }
  return new ApiError(502, 'BAD_GATEWAY', 'The payment provider answered unexpectedly');
}
