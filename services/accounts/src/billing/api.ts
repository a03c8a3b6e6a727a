/**
 * Routes of a project's billing (spec part 4, "Users, projects, configuration, internal"; API
 * reference, errors 402 BILLING_LIMIT_EXCEEDED and 400 BILLING_NOT_CONFIGURED), for the project's
 * secret key or the session of an OWNER or ADMIN (`billing.read`, `billing.manage`; a MEMBER gets
 * 403 FORBIDDEN). Another project than the key's, or one the user is not a member of: 404
 * RESOURCE_NOT_FOUND. Periods are calendar months in UTC.
 *
 * - `GET /users/@me/projects/:id/billing-limits` → 200 {@link LimitsResource}.
 * - `PUT /users/@me/projects/:id/billing-limits {transactional?, campaigns?, workflows?,
 *   inbound?}` (each an integer ≥ 0 or null for no cap; absent: unchanged; at least one; another
 *   key or a negative, fractional or non-numeric cap: 422) → 200 {@link LimitsResource}. Sends
 *   follow the new caps once the answer is sent.
 * - `GET /users/@me/projects/:id/billing-consumption` → 200 `{projectId, period: {start, end,
 *   timezone: 'UTC'}, usage, limits, remaining}`: emails accepted per category this month
 *   (`remaining` null where there is no cap), from the sending service's `billingUsage` view.
 * - `POST /users/@me/projects/:id/checkout {priceId?, successUrl?, cancelUrl?}` → 200 `{id, url}`:
 *   a Stripe Checkout session subscribing the project to `priceId` (a price of
 *   `STAMP_STRIPE_PLANS`, default `STAMP_STRIPE_PRICE_ID`); the URLs must be on the origin of
 *   `STAMP_PUBLIC_URL` (default: `STAMP_PUBLIC_URL/?checkout=success|cancelled`).
 * - `POST /users/@me/projects/:id/billing-portal {returnUrl?}` → 200 `{url}`: a session of
 *   Stripe's customer portal; 400 BAD_REQUEST before the project has a Stripe customer.
 * - `GET /users/@me/projects/:id/billing-invoices?limit&cursor` → 200 `{invoices, cursor}`: the
 *   customer's invoices, newest first (amounts in the currency's smallest unit), `cursor` for the
 *   next page or null; none before the project has a Stripe customer.
 * - `POST /webhooks/incoming/stripe` (public, raw body, header `Stripe-Signature`) → 200
 *   `{received: true, recorded, duplicate}`: verified with the SDK (`constructEvent`, 5 minutes of
 *   tolerance); a missing or bad signature answers 400 BAD_REQUEST and records nothing.
 *
 * Without `STAMP_STRIPE_SECRET_KEY` checkout, portal, invoices and the webhook answer 400
 * BILLING_NOT_CONFIGURED. A failure of Stripe's API answers 502 BAD_GATEWAY.
 */
import {
  type AwaitViews,
  BILLING_CATEGORIES,
  BILLING_USAGE_VIEW,
  type BillingCategory,
  type BillingLimits,
  billingPeriodBounds,
  billingPeriodOf,
  type BillingUsageDocument,
  billingUsageId,
  usageOf,
} from '@stamp/contracts';
import {
  ApiError,
  badRequest,
  cursorParam,
  pageSizeParam,
  parse,
  requestIdOf,
  validationError,
} from '@stamp/http-kit';
import type { ViewStore } from '@stamp/platform';
import express, { Router } from 'express';
import type Stripe from 'stripe';
import { z } from 'zod';

import { authorize, callerOfProject } from '../members/permissions.ts';
import { assertLiveProject, type ProjectState } from '../projects/events.ts';
import type { BillingCommands } from './commands.ts';
import type { BillingState } from './events.ts';
import {
  readStripeEvent,
  type StripeNotice,
  type StripeSettings,
  stripeClient,
  stripeFailure,
} from './stripe.ts';

/** Dependencies of {@link billingRouter}. */
export interface BillingRouterDeps {
  commands: BillingCommands;
  views: ViewStore;
  awaitViews: AwaitViews;
  /** STAMP_PUBLIC_URL: the origin checkout and portal may return to. */
  publicUrl: string;
  /** The Stripe settings; null when billing is off. */
  stripe: StripeSettings | null;
}

/** The caps of a project as the routes answer them. */
export interface LimitsResource {
  projectId: string;
  /** Caps in force (the lower of `manualLimits` and `planLimits`), null: no cap. */
  limits: BillingLimits;
  /** Caps set by hand. */
  manualLimits: BillingLimits;
  /** Caps of the active subscription's plan, or null. */
  planLimits: BillingLimits | null;
  /** The subscription as Stripe last reported it, or null. */
  subscription: { status: string; active: boolean; priceId: string | null } | null;
  /** The current period. */
  period: { start: string; end: string; timezone: 'UTC' };
  /** ISO 8601 time the caps last changed, or null. */
  updatedAt: string | null;
}

/** A cap in a request: an integer ≥ 0, or null for no cap. */
const cap = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).nullable().optional();

/**
 * Body of `PUT …/billing-limits`: the caps of the categories it names (an integer ≥ 0, or null
 * for no cap), at least one; another key is refused.
 */
export const limitsBody = z
  .strictObject({ transactional: cap, campaigns: cap, workflows: cap, inbound: cap })
  .refine((body) => BILLING_CATEGORIES.some((category) => body[category] !== undefined), {
    message: `Give the cap of at least one category (${BILLING_CATEGORIES.join(', ')})`,
  });

/** The current period (calendar month, UTC) with its bounds. */
function currentPeriod(): { id: string; start: string; end: string; timezone: 'UTC' } {
  const id = billingPeriodOf(new Date());
  return { id, ...billingPeriodBounds(id), timezone: 'UTC' };
}

function limitsResource(projectId: string, billing: BillingState): LimitsResource {
  const { start, end, timezone } = currentPeriod();
  const period = { start, end, timezone };
  const subscription = billing.subscription;
  return {
    projectId,
    limits: billing.limits,
    manualLimits: billing.manual,
    planLimits: billing.plan,
    subscription:
      subscription === null
        ? null
        : {
            status: subscription.status,
            active: subscription.active,
            priceId: subscription.priceId,
          },
    period,
    updatedAt: billing.updatedAt,
  };
}

/** 400 BILLING_NOT_CONFIGURED. */
const notConfigured = (): ApiError =>
  new ApiError(400, 'BILLING_NOT_CONFIGURED', 'Billing is not configured on this installation', {
    suggestion: 'Set STAMP_STRIPE_SECRET_KEY and STAMP_STRIPE_WEBHOOK_SECRET to turn billing on.',
  });

/** The billing router's authenticated routes and its public webhook (see the module comment). */
export function billingRouter(deps: BillingRouterDeps): { router: Router; publicRouter: Router } {
  const router = Router();
  const publicRouter = Router();
  const settings = deps.stripe;
  /** The Stripe client, made on first use. */
  let stripe: Promise<Stripe> | undefined;
  const origin = new URL(deps.publicUrl).origin;

  /** A URL on the origin of STAMP_PUBLIC_URL. */
  const returnUrl = z
    .url()
    .max(2048)
    .refine(
      (value) => new URL(value).origin === origin,
      `must be on ${origin} (the origin of STAMP_PUBLIC_URL)`,
    );
  const checkoutBody = z.strictObject({
    priceId: z.string().max(255).optional(),
    successUrl: returnUrl.optional(),
    cancelUrl: returnUrl.optional(),
  });
  const portalBody = z.strictObject({ returnUrl: returnUrl.optional() });
  const invoicesQuery = z.object({
    limit: pageSizeParam,
    cursor: cursorParam.refine(
      (value) => value === undefined || /^in_[A-Za-z0-9]{1,250}$/.test(value),
      'must be the cursor of the previous page',
    ),
  });

  /** The project, live. @throws ApiError 404 RESOURCE_NOT_FOUND. */
  async function liveProject(projectId: string): Promise<ProjectState> {
    const { state } = await deps.commands.load(projectId);
    assertLiveProject(state);
    return state;
  }

  /** Stripe and its settings. @throws ApiError 400 BILLING_NOT_CONFIGURED when billing is off. */
  async function configured(): Promise<{ client: Stripe; settings: StripeSettings }> {
    if (settings === null) throw notConfigured();
    stripe ??= stripeClient(settings);
    return { client: await stripe, settings };
  }

  router.get('/users/@me/projects/:id/billing-limits', async (req, res) => {
    const who = callerOfProject(req, res);
    authorize(who, 'billing.read');
    const project = await liveProject(who.projectId);
    res.json(limitsResource(who.projectId, project.billing));
  });

  router.put('/users/@me/projects/:id/billing-limits', async (req, res) => {
    const who = callerOfProject(req, res);
    authorize(who, 'billing.manage');
    const change = parse(limitsBody, req.body ?? {});
    const result = await deps.commands.setLimits(who.projectId, change, who.requestId);
    await deps.awaitViews(result.position);
    res.json(limitsResource(who.projectId, result.state.billing));
  });

  router.get('/users/@me/projects/:id/billing-consumption', async (req, res) => {
    const who = callerOfProject(req, res);
    authorize(who, 'billing.read');
    const project = await liveProject(who.projectId);
    const { id, ...period } = currentPeriod();
    const usage = usageOf(
      await deps.views
        .collection<BillingUsageDocument>(BILLING_USAGE_VIEW)
        .findOne({ _id: billingUsageId(who.projectId, id) }),
    );
    const limits = project.billing.limits;
    const remaining = Object.fromEntries(
      BILLING_CATEGORIES.map((category): [BillingCategory, number | null] => {
        const limit = limits[category];
        return [category, limit === null ? null : Math.max(0, limit - usage[category])];
      }),
    );
    res.json({ projectId: who.projectId, period, usage, limits, remaining });
  });

  router.post('/users/@me/projects/:id/checkout', async (req, res) => {
    const who = callerOfProject(req, res);
    authorize(who, 'billing.manage');
    const { client, settings: stripeSettings } = await configured();
    const body = parse(checkoutBody, req.body ?? {});
    const priceId = body.priceId ?? stripeSettings.priceId;
    if (!Object.hasOwn(stripeSettings.plans, priceId)) {
      throw validationError([
        {
          field: 'priceId',
          message: `Unknown price: one of ${Object.keys(stripeSettings.plans).join(', ')}`,
          code: 'invalid_value',
        },
      ]);
    }
    const project = await liveProject(who.projectId);
    const customer = project.billing.subscription?.customerId;
    let session: Stripe.Checkout.Session;
    try {
      session = await client.checkout.sessions.create(
        {
          mode: 'subscription',
          line_items: [{ price: priceId, quantity: 1 }],
          client_reference_id: who.projectId,
          metadata: { projectId: who.projectId, priceId },
          subscription_data: { metadata: { projectId: who.projectId } },
          success_url: body.successUrl ?? `${origin}/?checkout=success`,
          cancel_url: body.cancelUrl ?? `${origin}/?checkout=cancelled`,
          ...(customer === undefined ? {} : { customer }),
        },
        { idempotencyKey: `stamp-checkout-${who.requestId}` },
      );
    } catch (error) {
      throw stripeFailure(error);
    }
    res.json({ id: session.id, url: session.url });
  });

  router.post('/users/@me/projects/:id/billing-portal', async (req, res) => {
    const who = callerOfProject(req, res);
    authorize(who, 'billing.manage');
    const { client } = await configured();
    const body = parse(portalBody, req.body ?? {});
    const project = await liveProject(who.projectId);
    const customer = project.billing.subscription?.customerId;
    if (customer === undefined) {
      throw badRequest('The project has no billing account yet', {
        suggestion: `Subscribe first: POST /users/@me/projects/${who.projectId}/checkout`,
      });
    }
    let session: Stripe.BillingPortal.Session;
    try {
      session = await client.billingPortal.sessions.create({
        customer,
        return_url: body.returnUrl ?? `${origin}/`,
      });
    } catch (error) {
      throw stripeFailure(error);
    }
    res.json({ url: session.url });
  });

  router.get('/users/@me/projects/:id/billing-invoices', async (req, res) => {
    const who = callerOfProject(req, res);
    authorize(who, 'billing.read');
    const { client } = await configured();
    const query = parse(invoicesQuery, req.query);
    const project = await liveProject(who.projectId);
    const customer = project.billing.subscription?.customerId;
    if (customer === undefined) {
      res.json({ invoices: [], cursor: null });
      return;
    }
    let page: Stripe.ApiList<Stripe.Invoice>;
    try {
      page = await client.invoices.list({
        customer,
        limit: query.limit,
        ...(query.cursor === undefined ? {} : { starting_after: query.cursor }),
      });
    } catch (error) {
      throw stripeFailure(error);
    }
    const iso = (seconds: number | null | undefined): string | null =>
      typeof seconds === 'number' ? new Date(seconds * 1000).toISOString() : null;
    res.json({
      invoices: page.data.map((invoice) => ({
        id: invoice.id ?? null,
        number: invoice.number,
        status: invoice.status,
        currency: invoice.currency,
        total: invoice.total,
        amountDue: invoice.amount_due,
        amountPaid: invoice.amount_paid,
        createdAt: iso(invoice.created),
        periodStart: iso(invoice.period_start),
        periodEnd: iso(invoice.period_end),
        hostedInvoiceUrl: invoice.hosted_invoice_url ?? null,
        invoicePdf: invoice.invoice_pdf ?? null,
      })),
      cursor: page.has_more ? (page.data.at(-1)?.id ?? null) : null,
    });
  });

  // Stripe signs the exact bytes it sent: the body is read raw, never parsed before the check.
  const rawBody = express.raw({ type: () => true, limit: '1mb' });
  publicRouter.post('/webhooks/incoming/stripe', rawBody, async (req, res) => {
    const { client, settings: stripeSettings } = await configured();
    const signature = req.headers['stripe-signature'];
    if (typeof signature !== 'string' || signature === '') {
      throw badRequest('The Stripe-Signature header is missing');
    }
    const payload = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    let notice: StripeNotice | null;
    try {
      const event = client.webhooks.constructEvent(
        payload,
        signature,
        stripeSettings.webhookSecret,
      );
      notice = readStripeEvent(event);
    } catch {
      throw badRequest('The notification is not a Stripe event signed with the webhook secret', {
        suggestion: 'Check STAMP_STRIPE_WEBHOOK_SECRET against the endpoint in Stripe.',
      });
    }
    if (notice === null) {
      res.json({ received: true, recorded: false, duplicate: false });
      return;
    }
    const outcome = await deps.commands.recordNotice(
      notice,
      stripeSettings.plans,
      requestIdOf(res),
    );
    await deps.awaitViews(outcome.position);
    res.json({
      received: true,
      recorded: outcome.outcome === 'recorded',
      duplicate: outcome.outcome === 'duplicate',
    });
  });

  return { router, publicRouter };
}
