import fc from 'fast-check';

import type { Stamp } from './app.ts';
import { call, startTestStamp, TEST_KEYS } from './testing.ts';

/** Every route that takes input, with its method. */
const routes: { method: string; path: string; page?: true }[] = [
  { method: 'POST', path: '/v1/send' },
  { method: 'POST', path: '/v1/track' },
  { method: 'POST', path: '/v1/verify' },
  { method: 'POST', path: '/events/track' },
  { method: 'POST', path: '/contacts' },
  { method: 'GET', path: '/contacts' },
  { method: 'GET', path: '/contacts/:id' },
  { method: 'PATCH', path: '/contacts/:id' },
  { method: 'DELETE', path: '/contacts/:id' },
  { method: 'POST', path: '/contacts/lookup' },
  { method: 'POST', path: '/contacts/import' },
  { method: 'GET', path: '/contacts/import/:id' },
  { method: 'POST', path: '/contacts/bulk-subscribe' },
  { method: 'POST', path: '/contacts/bulk-unsubscribe' },
  { method: 'POST', path: '/contacts/bulk-delete' },
  { method: 'GET', path: '/contacts/bulk/:id' },
  { method: 'GET', path: '/events' },
  { method: 'GET', path: '/events/stats' },
  { method: 'GET', path: '/events/names' },
  { method: 'GET', path: '/events/contact/:id' },
  { method: 'GET', path: '/events/:id/usage' },
  { method: 'DELETE', path: '/events/:id' },
  { method: 'GET', path: '/contacts/fields' },
  { method: 'GET', path: '/contacts/fields/:id/values' },
  { method: 'GET', path: '/contacts/fields/:id/usage' },
  { method: 'DELETE', path: '/contacts/fields/:id' },
  { method: 'POST', path: '/templates' },
  { method: 'GET', path: '/templates' },
  { method: 'GET', path: '/templates/:id' },
  { method: 'PATCH', path: '/templates/:id' },
  { method: 'DELETE', path: '/templates/:id' },
  { method: 'POST', path: '/templates/:id/duplicate' },
  { method: 'GET', path: '/templates/:id/usage' },
  { method: 'GET', path: '/activity' },
  { method: 'GET', path: '/activity/stats' },
  { method: 'GET', path: '/activity/recent-count' },
  { method: 'GET', path: '/activity/types' },
  { method: 'GET', path: '/activity/upcoming' },
  { method: 'GET', path: '/analytics/timeseries' },
  { method: 'GET', path: '/analytics/campaign-stats' },
  { method: 'GET', path: '/analytics/top-campaigns' },
  { method: 'GET', path: '/analytics/top-events' },
  { method: 'POST', path: '/domains' },
  { method: 'GET', path: '/domains/:id/verify' },
  { method: 'GET', path: '/domains/project/:id' },
  { method: 'DELETE', path: '/domains/:id' },
  { method: 'GET', path: '/segments' },
  { method: 'POST', path: '/segments' },
  { method: 'GET', path: '/segments/:id' },
  { method: 'PATCH', path: '/segments/:id' },
  { method: 'DELETE', path: '/segments/:id' },
  { method: 'GET', path: '/segments/:id/contacts' },
  { method: 'POST', path: '/segments/:id/members' },
  { method: 'DELETE', path: '/segments/:id/members' },
  { method: 'POST', path: '/segments/count' },
  { method: 'POST', path: '/segments/:id/refresh' },
  { method: 'POST', path: '/segments/:id/compute' },
  { method: 'GET', path: '/campaigns' },
  { method: 'POST', path: '/campaigns' },
  { method: 'GET', path: '/campaigns/:id' },
  { method: 'PUT', path: '/campaigns/:id' },
  { method: 'DELETE', path: '/campaigns/:id' },
  { method: 'POST', path: '/campaigns/:id/duplicate' },
  { method: 'POST', path: '/campaigns/:id/send' },
  { method: 'POST', path: '/campaigns/:id/cancel' },
  { method: 'POST', path: '/campaigns/:id/test' },
  { method: 'GET', path: '/campaigns/:id/stats' },
  { method: 'GET', path: '/workflows' },
  { method: 'POST', path: '/workflows' },
  { method: 'GET', path: '/workflows/fields' },
  { method: 'GET', path: '/workflows/:id' },
  { method: 'PATCH', path: '/workflows/:id' },
  { method: 'DELETE', path: '/workflows/:id' },
  // `:workflow` is a real workflow, `:step` one of its steps: the bodies reach validation.
  { method: 'PATCH', path: '/workflows/:workflow' },
  { method: 'POST', path: '/workflows/:workflow/steps' },
  { method: 'PATCH', path: '/workflows/:workflow/steps/:step' },
  { method: 'PATCH', path: '/workflows/:workflow/steps/:id' },
  { method: 'DELETE', path: '/workflows/:workflow/steps/:id' },
  { method: 'POST', path: '/workflows/:workflow/transitions' },
  { method: 'DELETE', path: '/workflows/:workflow/transitions/:id' },
  { method: 'POST', path: '/workflows/:workflow/executions' },
  { method: 'GET', path: '/workflows/:workflow/executions' },
  { method: 'GET', path: '/workflows/:workflow/executions/:id' },
  { method: 'DELETE', path: '/workflows/:workflow/executions/:id' },
  { method: 'POST', path: '/workflows/:id/executions/cancel-all' },
  { method: 'GET', path: '/outbox' },
  { method: 'GET', path: '/outbox/:id' },
  { method: 'GET', path: '/emails/:id' },
  { method: 'GET', path: '/suppressions' },
  { method: 'GET', path: '/inbound' },
  { method: 'GET', path: '/inbound/:id' },
  { method: 'POST', path: '/suppressions' },
  { method: 'DELETE', path: '/suppressions/:id' },
  { method: 'POST', path: '/auth/signup' },
  { method: 'POST', path: '/auth/login' },
  { method: 'GET', path: '/auth/logout' },
  { method: 'POST', path: '/auth/request-verification' },
  { method: 'POST', path: '/auth/verify-email' },
  { method: 'POST', path: '/auth/request-password-reset' },
  { method: 'POST', path: '/auth/reset-password' },
  { method: 'GET', path: '/auth/oauth-config' },
  { method: 'GET', path: '/auth/oauth/:id' },
  { method: 'GET', path: '/auth/oauth/:id/callback' },
  // `probe` is a configured provider: its callback checks the sign-in state before anything else.
  { method: 'GET', path: '/auth/oauth/probe/callback' },
  { method: 'GET', path: '/users/@me' },
  { method: 'GET', path: '/users/@me/projects' },
  { method: 'POST', path: '/users/@me/projects' },
  { method: 'PATCH', path: '/users/@me/projects/:project' },
  { method: 'PATCH', path: '/users/@me/projects/:id' },
  { method: 'DELETE', path: '/users/@me/projects/:id' },
  { method: 'GET', path: '/projects/:project/setup-state' },
  { method: 'GET', path: '/projects/:project/members' },
  { method: 'POST', path: '/projects/:project/members' },
  { method: 'PATCH', path: '/projects/:project/members/:id' },
  { method: 'DELETE', path: '/projects/:project/members/:id' },
  { method: 'POST', path: '/webhook-endpoints' },
  { method: 'GET', path: '/webhook-endpoints' },
  { method: 'GET', path: '/webhook-endpoints/:id' },
  { method: 'PATCH', path: '/webhook-endpoints/:id' },
  { method: 'DELETE', path: '/webhook-endpoints/:id' },
  { method: 'PATCH', path: '/webhook-endpoints/:endpoint' },
  { method: 'GET', path: '/webhook-endpoints/:endpoint/deliveries' },
  { method: 'GET', path: '/webhook-endpoints/:endpoint/deliveries/:id' },
  { method: 'POST', path: '/webhook-endpoints/:endpoint/deliveries/:id/retry' },
  { method: 'POST', path: '/users/@me/projects/:id/regenerate-keys' },
  { method: 'POST', path: '/users/@me/projects/:id/reset' },
  { method: 'GET', path: '/users/@me/projects/:project/billing-limits' },
  { method: 'PUT', path: '/users/@me/projects/:project/billing-limits' },
  { method: 'PUT', path: '/users/@me/projects/:id/billing-limits' },
  { method: 'GET', path: '/users/@me/projects/:project/billing-consumption' },
  // `:id`: the checkout of the real project would reach Stripe's API (502 without it).
  { method: 'POST', path: '/users/@me/projects/:id/checkout' },
  { method: 'POST', path: '/users/@me/projects/:project/billing-portal' },
  { method: 'GET', path: '/users/@me/projects/:project/billing-invoices' },
  { method: 'POST', path: '/webhooks/incoming/stripe' },
  { method: 'GET', path: '/config' },
  { method: 'GET', path: '/openapi.json' },
  { method: 'GET', path: '/docs', page: true },
  { method: 'GET', path: '/docs/:id' },
  { method: 'GET', path: '/projects/:id/security' },
  { method: 'GET', path: '/users/@me/projects/:id/security' },
  { method: 'POST', path: '/projects/:id/security/reinstate' },
  // public subscription pages answer HTML, not the JSON envelope
  { method: 'GET', path: '/unsubscribe/:id', page: true },
  { method: 'POST', path: '/unsubscribe/:id', page: true },
  { method: 'POST', path: '/subscribe/:id', page: true },
  { method: 'GET', path: '/manage/:id', page: true },
  // public tracking links answer an image, a redirect or a plain 404
  { method: 'GET', path: '/t/o/:id', page: true },
  { method: 'GET', path: '/t/c/:id', page: true },
  { method: 'POST', path: '/webhooks/sns' },
  // JSON and raw bodies: the upload refuses them (not multipart/form-data); uploads.test.ts sends
  // malformed multipart bodies.
  { method: 'POST', path: '/uploads/image' },
  { method: 'GET', path: '/images/:project/:id' },
  { method: 'GET', path: '/images/:id/x.png' },
];

const json = fc.jsonValue({ maxDepth: 3 });
/** Bodies shaped like the real ones, with wrong types and values in every field. */
const plausible = fc.record(
  {
    to: fc.oneof(
      fc.emailAddress(),
      json,
      fc.array(fc.oneof(fc.emailAddress(), json), { maxLength: 3 }),
    ),
    subject: fc.oneof(fc.string(), json),
    body: fc.oneof(fc.string(), json),
    from: fc.oneof(fc.emailAddress(), json, fc.record({ name: json, email: json })),
    template: json,
    email: fc.oneof(fc.emailAddress(), json),
    event: fc.oneof(fc.string(), json),
    data: fc.oneof(json, fc.dictionary(fc.string(), json)),
    headers: fc.oneof(json, fc.dictionary(fc.string(), fc.string())),
    attachments: fc.oneof(
      json,
      fc.array(
        fc.dictionary(
          fc.constantFrom('filename', 'content', 'contentType', 'contentId', 'disposition'),
          json,
        ),
        { maxLength: 3 },
      ),
    ),
    subscribed: json,
    domain: fc.oneof(fc.domain(), json),
    name: json,
    type: json,
    description: json,
    trackMembership: json,
    createMissing: json,
    audienceType: fc.oneof(fc.constantFrom('ALL', 'SEGMENT', 'FILTERED'), json),
    segmentId: json,
    audienceFilter: json,
    audienceCondition: json,
    scheduledFor: fc.oneof(
      fc.date().map((date) => date.toString()),
      json,
    ),
    fromName: json,
    replyTo: fc.oneof(fc.emailAddress(), json),
    emails: fc.oneof(json, fc.array(fc.oneof(fc.emailAddress(), json), { maxLength: 3 })),
    eventName: fc.oneof(fc.string(), json),
    allowReentry: json,
    enabled: json,
    triggerType: fc.oneof(fc.constantFrom('EVENT', 'MANUAL', 'SCHEDULE'), json),
    config: fc.oneof(
      json,
      fc.record(
        {
          templateId: json,
          amount: json,
          unit: fc.oneof(fc.constantFrom('minutes', 'days'), json),
          eventName: json,
          timeout: json,
          field: fc.oneof(fc.constantFrom('data.plan', 'event.x', 'contact.email'), json),
          operator: fc.oneof(fc.constantFrom('equals', 'exists'), json),
          value: json,
          password: fc.oneof(fc.string({ maxLength: 300 }), json),
          role: fc.oneof(fc.constantFrom('OWNER', 'ADMIN', 'MEMBER'), json),
          token: fc.oneof(fc.string({ maxLength: 200 }), json),
          inviteToken: fc.oneof(fc.string({ maxLength: 200 }), json),
          url: fc.oneof(fc.webUrl(), json),
          method: json,
          body: json,
          updates: json,
          subscriptionAction: json,
          reason: json,
          recipient: json,
        },
        { requiredKeys: [] },
      ),
    ),
    url: fc.oneof(
      fc.webUrl(),
      json,
      fc.constantFrom('http://127.0.0.1/hook', 'http://[fe80::1]/', 'ftp://example.com/', 'x'),
    ),
    eventTypes: fc.oneof(
      json,
      fc.array(fc.oneof(fc.constantFrom('*', 'email.sent', 'segment.entry'), json), {
        maxLength: 3,
      }),
    ),
    position: json,
    fromStepId: json,
    toStepId: json,
    branch: fc.oneof(fc.constantFrom('yes', 'no'), json),
    waitOutcome: fc.oneof(fc.constantFrom('EVENT', 'TIMEOUT'), json),
    contactId: json,
    context: json,
    condition: fc.oneof(
      json,
      fc.record({
        logic: fc.oneof(fc.constantFrom('AND', 'OR'), json),
        groups: fc.oneof(
          json,
          fc.array(
            fc.record({
              filters: fc.oneof(
                json,
                fc.array(
                  fc.record({
                    field: fc.oneof(
                      fc.constantFrom('email', 'subscribed', 'data.plan', 'event.x', 'segment.x'),
                      json,
                    ),
                    operator: fc.oneof(fc.constantFrom('equals', 'within', 'triggered'), json),
                    value: json,
                    unit: json,
                  }),
                  { maxLength: 2 },
                ),
              ),
            }),
            { maxLength: 2 },
          ),
        ),
      }),
    ),
  },
  { requiredKeys: [] },
);
const rawBody = fc.oneof(
  fc.string(),
  fc.constantFrom('{', '{"to":', '[1,2', 'null', '"x"', '{"__proto__":{"polluted":1}}', '\u0000'),
);
const segment = fc.oneof(
  fc.uuid(),
  fc.string({ minLength: 1, maxLength: 40 }).map(encodeURIComponent),
  fc.constantFrom('..', '%2e%2e', 'null', '0'),
);
const query = fc.dictionary(
  fc.constantFrom(
    'limit',
    'cursor',
    'search',
    'page',
    'pageSize',
    'type',
    'status',
    'splice',
    'from',
    'to',
    'granularity',
    'metric',
    'campaignId',
    'redirect',
    'state',
    'code',
    'error',
  ),
  fc.string({ maxLength: 30 }),
);

describe('malformed requests never get a 500', () => {
  let stamp: Stamp;
  let workflowId: string;
  let stepId: string;
  let endpointId: string;

  beforeAll(async () => {
    stamp = await startTestStamp({
      // A provider no request reaches: its callback refuses every input for want of a state.
      STAMP_OIDC_PROVIDERS: JSON.stringify([
        {
          id: 'probe',
          name: 'Probe',
          issuer: 'http://127.0.0.1:9',
          clientId: 'probe',
          clientSecret: 'probe',
        },
      ]),
      // Billing on, with an API base no request reaches: the project has no Stripe customer.
      STAMP_STRIPE_SECRET_KEY: 'sk_test_probe0123456789',
      STAMP_STRIPE_WEBHOOK_SECRET: 'whsec_probe0123456789',
      STAMP_STRIPE_PRICE_ID: 'price_probe',
      STAMP_STRIPE_PLANS: JSON.stringify({
        price_probe: { transactional: null, campaigns: null, workflows: null, inbound: null },
      }),
      STAMP_STRIPE_API_BASE: 'http://127.0.0.1:9',
    });
    const created = await call(stamp.url, TEST_KEYS.secretKey, 'POST', '/workflows', {
      name: 'Probe',
      eventName: 'probe',
    });
    const workflow = created.body as { id: string; steps: { id: string }[] };
    workflowId = workflow.id;
    stepId = workflow.steps[0]?.id ?? '';
    const exit = await call(
      stamp.url,
      TEST_KEYS.secretKey,
      'POST',
      `/workflows/${workflowId}/steps`,
      {
        type: 'EXIT',
        name: 'Done',
        config: {},
      },
    );
    expect(exit.status).toBe(201);
    // An endpoint no event reaches: the probe's events are not posted anywhere.
    const endpoint = await call(stamp.url, TEST_KEYS.secretKey, 'POST', '/webhook-endpoints', {
      url: 'https://hooks.example.com/in',
      eventTypes: ['campaign.sent'],
      enabled: false,
    });
    expect(endpoint.status).toBe(201);
    endpointId = (endpoint.body as { id: string }).id;
  });

  afterAll(async () => {
    await stamp.close();
  });

  it.each(routes)('$method $path', async ({ method, path, page }) => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(plausible, json, rawBody),
        segment,
        query,
        async (body, id, params) => {
          const search = new URLSearchParams(params).toString();
          const target =
            path
              .replace(':workflow', workflowId)
              .replace(':step', stepId)
              .replace(':endpoint', endpointId)
              .replace(':project', stamp.bootstrap.projectId)
              .replace(':id', id) + (search === '' ? '' : `?${search}`);
          const payload =
            method === 'GET' || method === 'DELETE'
              ? undefined
              : typeof body === 'string'
                ? body
                : JSON.stringify(body);
          const response = await call(stamp.url, TEST_KEYS.secretKey, method, target, payload);
          if (response.status >= 500) {
            throw new Error(
              `${method} ${target} with ${String(payload)} answered ${response.status}: ${JSON.stringify(response.body)}`,
            );
          }
          if (response.status >= 400 && page !== true) {
            expect(response.body).toMatchObject({
              success: false,
              error: { statusCode: response.status },
            });
          }
          expect(({} as Record<string, unknown>).polluted).toBeUndefined();
        },
      ),
      { numRuns: 60 },
    );
  });
});
