/**
 * The accounts service's routes in the OpenAPI document (spec part 4, "Users, projects,
 * configuration, internal"; API reference, "Dashboard authentication and members"): sign-up and
 * login, OpenID Connect logins, the signed-in user, projects and their keys, settings, members,
 * protection and billing.
 */
import { BILLING_CATEGORIES, TRACKING_MODES } from '@stamp/contracts';
import { cursorParam, isoTimestamp, pageSizeParam, type RouteDoc } from '@stamp/http-kit';
import { z } from 'zod';

import { limitsBody } from './billing/api.ts';
import { addBody, patchBody as memberPatchBody } from './members/api.ts';
import { callbackQuery, startQuery } from './oauth/api.ts';
import { loginBody, resetBody, resetRequestBody, signupBody, tokenBody } from './sessions/api.ts';
import { patchBody as settingsBody } from './setup/api.ts';
import { SETUP_STEPS } from './setup/progress.ts';
import { createBody as projectBody } from './users/api.ts';

const role = z.enum(['OWNER', 'ADMIN', 'MEMBER']);
const count = z.int().min(0);

/** The signed-in user (never a password hash). */
const userSchema = z
  .object({
    id: z.string(),
    email: z.string(),
    name: z.string(),
    emailVerified: z.boolean(),
    createdAt: isoTimestamp,
  })
  .meta({ id: 'User' });

/** A project as its member sees it. */
const memberProject = z
  .object({
    id: z.string(),
    name: z.string(),
    role,
    createdAt: isoTimestamp,
    publicKeyHint: z.string().nullable(),
    secretKeyHint: z.string().nullable(),
  })
  .meta({ id: 'MemberProject' });

const memberSchema = z
  .object({
    userId: z.string(),
    email: z.string(),
    name: z.string(),
    role,
    createdAt: isoTimestamp,
  })
  .meta({ id: 'Member' });

const suspension = z.object({
  reason: z.enum(['BOUNCE_RATE', 'COMPLAINT_RATE']),
  sends: count,
  bounces: count,
  complaints: count,
  bounceRate: z.number().min(0).max(1),
  complaintRate: z.number().min(0).max(1),
  suspendedAt: isoTimestamp,
});

/** The security report of a project (README, "Project protection"). */
const securitySchema = z
  .object({
    projectId: z.string(),
    status: z.enum(['ACTIVE', 'SUSPENDED']),
    suspension: suspension.nullable(),
    window: z.object({ days: z.number().min(0), since: isoTimestamp }),
    sends: count,
    bounces: count,
    complaints: count,
    bounceRate: z.number().min(0).max(1),
    complaintRate: z.number().min(0).max(1),
    thresholds: z.object({
      minimumSends: count,
      bounceRate: z.number().min(0).max(1),
      complaintRate: z.number().min(0).max(1),
    }),
    recentSuspensions: z.array(suspension),
  })
  .meta({ id: 'SecurityReport' });

const caps = z.record(z.enum(BILLING_CATEGORIES), z.int().min(0).nullable());
const period = z.object({ start: isoTimestamp, end: isoTimestamp, timezone: z.literal('UTC') });

const limitsSchema = z
  .object({
    projectId: z.string(),
    limits: caps.describe('Caps in force, null: no cap'),
    manualLimits: caps,
    planLimits: caps.nullable(),
    subscription: z
      .object({ status: z.string(), active: z.boolean(), priceId: z.string().nullable() })
      .nullable(),
    period,
    updatedAt: isoTimestamp.nullable(),
  })
  .meta({ id: 'BillingLimits' });

/** Request schemas of the billing routes, which build theirs with the public URL's origin. */
const returnUrl = z.url().max(2048).describe('A URL on the origin of STAMP_PUBLIC_URL');
const checkoutBody = z.strictObject({
  priceId: z.string().max(255).optional(),
  successUrl: returnUrl.optional(),
  cancelUrl: returnUrl.optional(),
});
const portalBody = z.strictObject({ returnUrl: returnUrl.optional() });
const invoicesQuery = z.object({ limit: pageSizeParam, cursor: cursorParam });

const success = z.object({ success: z.literal(true) });
const notConfigured = 'BILLING_NOT_CONFIGURED, or a malformed request';
const stripeFailed = { 502: { description: "Stripe's API failed" } };

/** Routes of the accounts service. */
export const ACCOUNTS_ROUTES: readonly RouteDoc[] = [
  {
    method: 'post',
    path: '/auth/signup',
    summary: 'Sign up; sets the session cookie',
    auth: 'none',
    tags: ['auth'],
    body: signupBody,
    responses: {
      201: { description: 'The user (Set-Cookie: stamp_session)', schema: userSchema },
      400: { description: 'Malformed body, or an invalid invitation' },
      403: { description: 'Sign-up is closed, or a cross-site request' },
      409: { description: 'An account with this email exists' },
      413: { description: 'The body is too large' },
    },
  },
  {
    method: 'post',
    path: '/auth/login',
    summary: 'Log in with email and password; sets the session cookie',
    auth: 'none',
    tags: ['auth'],
    body: loginBody,
    responses: {
      200: { description: 'The user (Set-Cookie: stamp_session)', schema: userSchema },
      401: { description: 'INVALID_CREDENTIALS' },
      403: { description: 'Cross-site request' },
      413: { description: 'The body is too large' },
      429: { description: 'Too many failed logins (Retry-After)' },
    },
  },
  {
    method: 'get',
    path: '/auth/logout',
    summary: 'Clear the session cookie',
    auth: 'none',
    tags: ['auth'],
    responses: { 200: { description: 'Logged out', schema: success } },
  },
  {
    method: 'post',
    path: '/auth/request-verification',
    summary: 'Send the email verification link again (session cookie)',
    auth: 'user',
    tags: ['auth'],
    responses: {
      200: { description: 'Sent, unless the address is confirmed', schema: success },
      401: { description: 'Not signed in' },
      403: { description: 'Cross-site request' },
      429: { description: 'Too many emails' },
    },
  },
  {
    method: 'post',
    path: '/auth/verify-email',
    summary: 'Confirm the email address with the token of its link',
    auth: 'none',
    tags: ['auth'],
    body: tokenBody,
    responses: {
      200: { description: 'Confirmed', schema: success },
      400: { description: 'Invalid, expired or used token, or a malformed body' },
      403: { description: 'Cross-site request' },
      413: { description: 'The body is too large' },
    },
  },
  {
    method: 'post',
    path: '/auth/request-password-reset',
    summary: 'Send a password reset link (the same answer whether the account exists or not)',
    auth: 'none',
    tags: ['auth'],
    body: resetRequestBody,
    responses: {
      200: { description: 'Accepted', schema: success },
      403: { description: 'Cross-site request' },
      413: { description: 'The body is too large' },
    },
  },
  {
    method: 'post',
    path: '/auth/reset-password',
    summary: 'Set a new password with the token of a reset link',
    auth: 'none',
    tags: ['auth'],
    body: resetBody,
    responses: {
      200: { description: 'The new password holds; older sessions end', schema: success },
      400: { description: 'Invalid, expired or used token, or a malformed body' },
      403: { description: 'Cross-site request' },
      413: { description: 'The body is too large' },
    },
  },
  {
    method: 'get',
    path: '/auth/oauth-config',
    summary: 'The configured OpenID Connect providers',
    auth: 'none',
    tags: ['auth'],
    responses: {
      200: {
        description: 'The providers and the URLs that start their logins',
        schema: z.object({
          success: z.literal(true),
          data: z.object({
            github: z.boolean(),
            google: z.boolean(),
            providers: z.array(
              z.object({ id: z.string(), name: z.string(), loginUrl: z.string() }),
            ),
          }),
        }),
      },
    },
  },
  {
    method: 'get',
    path: '/auth/oauth/{provider}',
    summary: 'Start a login with a provider: redirects to its authorization endpoint',
    auth: 'none',
    tags: ['auth'],
    query: startQuery,
    responses: {
      302: { description: 'Redirect to the provider (Set-Cookie: the sign-in state)' },
      404: { description: 'Unknown provider' },
      502: { description: 'The provider cannot be reached' },
    },
  },
  {
    method: 'get',
    path: '/auth/oauth/{provider}/callback',
    summary: "The provider's redirect back: signs the user in and redirects to the dashboard",
    auth: 'none',
    tags: ['auth'],
    query: callbackQuery,
    responses: {
      302: { description: 'Signed in (Set-Cookie: stamp_session); redirect to the dashboard' },
      400: { description: 'No or expired sign-in state, a state mismatch, or a refused code' },
      403: { description: 'No verified email, or sign-up closed' },
      404: { description: 'Unknown provider' },
      502: { description: 'The provider cannot be reached' },
    },
  },
  {
    method: 'get',
    path: '/users/@me',
    summary: 'The signed-in user',
    auth: 'user',
    tags: ['projects'],
    responses: { 200: { description: 'The user', schema: userSchema } },
  },
  {
    method: 'get',
    path: '/users/@me/projects',
    summary: "The signed-in user's projects, oldest first",
    auth: 'user',
    tags: ['projects'],
    responses: { 200: { description: 'The projects', schema: z.array(memberProject) } },
  },
  {
    method: 'post',
    path: '/users/@me/projects',
    summary: 'Create a project owned by the signed-in user',
    auth: 'user',
    tags: ['projects'],
    body: projectBody,
    responses: {
      201: {
        description: 'The project with its keys (shown this once)',
        schema: memberProject.extend({ publicKey: z.string(), secretKey: z.string() }),
      },
    },
  },
  {
    method: 'patch',
    path: '/users/@me/projects/{id}',
    summary: "Change a project's name or open and click tracking",
    auth: 'project',
    tags: ['projects'],
    body: settingsBody,
    responses: {
      200: {
        description: 'The project',
        schema: memberProject.extend({
          role: role.nullable(),
          tracking: z.enum(TRACKING_MODES).nullable(),
        }),
      },
    },
  },
  {
    method: 'delete',
    path: '/users/@me/projects/{id}',
    summary: 'Delete a project (OWNER)',
    auth: 'project',
    tags: ['projects'],
    responses: { 204: { description: 'Deleted: its keys stop working at once' } },
  },
  {
    method: 'post',
    path: '/users/@me/projects/{id}/regenerate-keys',
    summary: 'Replace both keys of a project (the old ones stop working at once)',
    auth: 'project',
    tags: ['projects'],
    responses: {
      200: {
        description: 'The new keys',
        schema: z.object({
          id: z.string(),
          name: z.string(),
          publicKey: z.string(),
          secretKey: z.string(),
        }),
      },
    },
  },
  {
    method: 'post',
    path: '/users/@me/projects/{id}/reset',
    summary: "Wipe a project's data (OWNER; irreversible)",
    auth: 'project',
    tags: ['projects'],
    responses: {
      202: {
        description: 'The reset is recorded; each service wipes its part within seconds',
        schema: z.object({ id: z.string(), resetAt: isoTimestamp }),
      },
    },
  },
  ...(['/projects/{id}/security', '/users/@me/projects/{id}/security'] as const).map(
    (path): RouteDoc => ({
      method: 'get',
      path,
      summary: 'Bounce and complaint rates, thresholds and suspensions of a project',
      auth: 'project',
      tags: ['projects'],
      responses: { 200: { description: 'The security report', schema: securitySchema } },
    }),
  ),
  {
    method: 'post',
    path: '/projects/{id}/security/reinstate',
    summary: 'Lift the suspension of a project',
    auth: 'project',
    tags: ['projects'],
    responses: { 200: { description: 'The security report', schema: securitySchema } },
  },
  {
    method: 'get',
    path: '/projects/{id}/setup-state',
    summary: 'Onboarding steps of a project',
    auth: 'project',
    tags: ['projects'],
    responses: {
      200: {
        description: 'The steps in order',
        schema: z.object({
          steps: z.array(
            z.object({
              step: z.enum(SETUP_STEPS),
              done: z.boolean(),
              completedAt: isoTimestamp.optional(),
            }),
          ),
          completed: z.boolean(),
        }),
      },
    },
  },
  {
    method: 'get',
    path: '/projects/{id}/members',
    summary: 'Members of a project, oldest first',
    auth: 'project',
    tags: ['members'],
    responses: { 200: { description: 'The members', schema: z.array(memberSchema) } },
  },
  {
    method: 'post',
    path: '/projects/{id}/members',
    summary: 'Add a member, or invite an address without an account',
    auth: 'project',
    tags: ['members'],
    body: addBody,
    responses: {
      201: { description: 'The member (the address has an account)', schema: memberSchema },
      202: {
        description: 'An invitation was sent',
        schema: z.object({ email: z.string(), role, invited: z.literal(true) }),
      },
      409: { description: 'Already a member' },
    },
  },
  {
    method: 'patch',
    path: '/projects/{id}/members/{userId}',
    summary: "Change a member's role",
    auth: 'project',
    tags: ['members'],
    body: memberPatchBody,
    responses: {
      200: { description: 'The member', schema: memberSchema },
      409: { description: "The last OWNER's demotion" },
    },
  },
  {
    method: 'delete',
    path: '/projects/{id}/members/{userId}',
    summary: 'Remove a member, or leave the project',
    auth: 'project',
    tags: ['members'],
    responses: {
      204: { description: 'Removed' },
      409: { description: 'The last OWNER' },
    },
  },
  {
    method: 'get',
    path: '/users/@me/projects/{id}/billing-limits',
    summary: 'Monthly caps of each billing category',
    auth: 'project',
    tags: ['billing'],
    responses: { 200: { description: 'The caps', schema: limitsSchema } },
  },
  {
    method: 'put',
    path: '/users/@me/projects/{id}/billing-limits',
    summary: 'Set monthly caps (null: no cap)',
    auth: 'project',
    tags: ['billing'],
    body: limitsBody,
    responses: { 200: { description: 'The caps', schema: limitsSchema } },
  },
  {
    method: 'get',
    path: '/users/@me/projects/{id}/billing-consumption',
    summary: 'Emails accepted per category this month',
    auth: 'project',
    tags: ['billing'],
    responses: {
      200: {
        description: 'Usage, caps and what remains',
        schema: z.object({
          projectId: z.string(),
          period,
          usage: z.record(z.enum(BILLING_CATEGORIES), count),
          limits: caps,
          remaining: caps,
        }),
      },
    },
  },
  {
    method: 'post',
    path: '/users/@me/projects/{id}/checkout',
    summary: 'Create a Stripe Checkout session subscribing the project',
    auth: 'project',
    tags: ['billing'],
    body: checkoutBody,
    bodyRequired: false,
    responses: {
      200: {
        description: 'The session',
        schema: z.object({ id: z.string(), url: z.string().nullable() }),
      },
      400: { description: notConfigured },
      ...stripeFailed,
    },
  },
  {
    method: 'post',
    path: '/users/@me/projects/{id}/billing-portal',
    summary: "Open a session of Stripe's customer portal",
    auth: 'project',
    tags: ['billing'],
    body: portalBody,
    bodyRequired: false,
    responses: {
      200: { description: 'The session', schema: z.object({ url: z.string() }) },
      400: { description: `${notConfigured}, or no billing account yet` },
      ...stripeFailed,
    },
  },
  {
    method: 'get',
    path: '/users/@me/projects/{id}/billing-invoices',
    summary: "The project's invoices, newest first",
    auth: 'project',
    tags: ['billing'],
    query: invoicesQuery,
    responses: {
      200: {
        description: 'A page of invoices; `cursor` names the next page, null at the end',
        schema: z.object({
          invoices: z.array(
            z.object({
              id: z.string().nullable(),
              number: z.string().nullable(),
              status: z.string().nullable(),
              currency: z.string(),
              total: z.int(),
              amountDue: z.int(),
              amountPaid: z.int(),
              createdAt: isoTimestamp.nullable(),
              periodStart: isoTimestamp.nullable(),
              periodEnd: isoTimestamp.nullable(),
              hostedInvoiceUrl: z.string().nullable(),
              invoicePdf: z.string().nullable(),
            }),
          ),
          cursor: z.string().nullable(),
        }),
      },
      400: { description: notConfigured },
      ...stripeFailed,
    },
  },
  {
    method: 'post',
    path: '/webhooks/incoming/stripe',
    summary: "Stripe's notifications (signed with the webhook secret)",
    auth: 'none',
    tags: ['public'],
    body: z.record(z.string(), z.unknown()).describe('A Stripe event, verified by its signature'),
    responses: {
      200: {
        description: 'Received',
        schema: z.object({
          received: z.literal(true),
          recorded: z.boolean(),
          duplicate: z.boolean(),
        }),
      },
      400: { description: 'BILLING_NOT_CONFIGURED, or a missing or bad signature' },
    },
  },
];
