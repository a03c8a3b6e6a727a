/**
 * Configuration of billing (README "Configuration" and "Billing"; API reference, "Configuration
 * names of the coming features"): the Stripe variables, part of `accountsEnv`, so both the
 * embedded platform and the accounts process read them.
 */
import type { BillingLimits } from '@stamp/contracts';
import { z as zod, type z } from 'zod';

import type { StripeSettings } from './stripe.ts';

/** A cap of a plan: an integer ≥ 0, or null for no cap. */
const cap = zod.number().int().min(0).max(Number.MAX_SAFE_INTEGER).nullable();

/** The caps of one plan: every category, each a cap or null. */
const planLimits = zod.strictObject({
  transactional: cap,
  campaigns: cap,
  workflows: cap,
  inbound: cap,
});

/** A Stripe price id. */
const priceId = zod
  .string()
  .regex(/^price_[A-Za-z0-9]{1,200}$/, 'must be a Stripe price id (price_…)');

/** `STAMP_STRIPE_PLANS`: a JSON object of price id → caps; none when unset. */
const plans = zod
  .string()
  .optional()
  .transform((value, context) => {
    if (value === undefined || value.trim() === '') return {};
    try {
      return JSON.parse(value) as unknown;
    } catch {
      context.addIssue({
        code: 'custom',
        message:
          'must be a JSON object of price id → {transactional, campaigns, workflows, inbound}',
      });
      return zod.NEVER;
    }
  })
  .pipe(zod.record(priceId, planLimits));

/** `STAMP_STRIPE_API_BASE`: `http(s)://host[:port]`, nothing else. */
const apiBase = zod
  .url()
  .refine((value) => {
    const url = new URL(value);
    return (
      (url.protocol === 'https:' || url.protocol === 'http:') &&
      (url.pathname === '/' || url.pathname === '') &&
      url.search === '' &&
      url.hash === '' &&
      url.username === '' &&
      url.password === ''
    );
  }, 'must be http(s)://host[:port] without a path, query or credentials')
  .optional();

/**
 * The billing variables: `STAMP_STRIPE_SECRET_KEY` and `STAMP_STRIPE_WEBHOOK_SECRET` (both or
 * neither; unset: billing is off), `STAMP_STRIPE_PRICE_ID` (the price of a checkout),
 * `STAMP_STRIPE_PLANS` (JSON: price id → caps of every category, each an integer ≥ 0 or null) and
 * `STAMP_STRIPE_API_BASE` (where the SDK sends its requests). Check the cross-field rules with
 * {@link checkBilling}.
 */
export const billingEnv = {
  STAMP_STRIPE_SECRET_KEY: zod
    .string()
    .regex(/^(sk|rk)_[A-Za-z0-9_]{8,250}$/, 'must be a Stripe API key (sk_… or rk_…)')
    .optional(),
  STAMP_STRIPE_WEBHOOK_SECRET: zod
    .string()
    .regex(/^whsec_[A-Za-z0-9+/=_-]{8,250}$/, 'must be a Stripe webhook signing secret (whsec_…)')
    .optional(),
  STAMP_STRIPE_PRICE_ID: priceId.optional(),
  STAMP_STRIPE_PLANS: plans,
  STAMP_STRIPE_API_BASE: apiBase,
};

/** The billing variables once parsed by {@link billingEnv}. */
export interface BillingVariables {
  STAMP_STRIPE_SECRET_KEY?: string | undefined;
  STAMP_STRIPE_WEBHOOK_SECRET?: string | undefined;
  STAMP_STRIPE_PRICE_ID?: string | undefined;
  STAMP_STRIPE_PLANS: Record<string, BillingLimits>;
  STAMP_STRIPE_API_BASE?: string | undefined;
}

/**
 * Cross-field rules of the billing variables: the two keys both or neither; with them, a
 * `STAMP_STRIPE_PRICE_ID` that `STAMP_STRIPE_PLANS` lists; without them, none of the others. Use
 * with `.superRefine`; each broken rule is an issue naming the variable.
 */
export function checkBilling(env: BillingVariables, context: z.RefinementCtx): void {
  const key = env.STAMP_STRIPE_SECRET_KEY;
  const secret = env.STAMP_STRIPE_WEBHOOK_SECRET;
  if ((key === undefined) !== (secret === undefined)) {
    context.addIssue({
      code: 'custom',
      path: [key === undefined ? 'STAMP_STRIPE_SECRET_KEY' : 'STAMP_STRIPE_WEBHOOK_SECRET'],
      message: 'set both STAMP_STRIPE_SECRET_KEY and STAMP_STRIPE_WEBHOOK_SECRET, or neither',
    });
    return;
  }
  // After a field error the value may be the raw input: check only a parsed object.
  const listed: unknown = env.STAMP_STRIPE_PLANS;
  const plans = listed !== null && typeof listed === 'object' ? listed : {};
  if (key === undefined) {
    for (const name of ['STAMP_STRIPE_PRICE_ID', 'STAMP_STRIPE_API_BASE'] as const) {
      if (env[name] !== undefined) {
        context.addIssue({
          code: 'custom',
          path: [name],
          message: `${name} is set but billing is off: set STAMP_STRIPE_SECRET_KEY and STAMP_STRIPE_WEBHOOK_SECRET too`,
        });
      }
    }
    return;
  }
  const price = env.STAMP_STRIPE_PRICE_ID;
  if (price === undefined) {
    context.addIssue({
      code: 'custom',
      path: ['STAMP_STRIPE_PRICE_ID'],
      message: 'is required with STAMP_STRIPE_SECRET_KEY: the price a checkout subscribes to',
    });
  } else if (!Object.hasOwn(plans, price)) {
    context.addIssue({
      code: 'custom',
      path: ['STAMP_STRIPE_PLANS'],
      message: `must list the caps of STAMP_STRIPE_PRICE_ID (${price})`,
    });
  }
}

/** The Stripe settings of parsed variables, or null when billing is off. */
export function stripeSettingsOf(env: BillingVariables): StripeSettings | null {
  const { STAMP_STRIPE_SECRET_KEY: secretKey, STAMP_STRIPE_WEBHOOK_SECRET: webhookSecret } = env;
  if (secretKey === undefined || webhookSecret === undefined) return null;
  return {
    secretKey,
    webhookSecret,
    priceId: env.STAMP_STRIPE_PRICE_ID ?? '',
    plans: env.STAMP_STRIPE_PLANS,
    apiBase: env.STAMP_STRIPE_API_BASE,
  };
}
