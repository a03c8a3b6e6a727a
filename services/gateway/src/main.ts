// First: starts OpenTelemetry before the modules it instruments are loaded.
import { DASHBOARD_DIST } from '@stamp/dashboard';
import { telemetry } from '@stamp/platform/telemetry/register.ts';
import {
  type KeysApi,
  PUBLIC_SERVICE_ROUTES,
  ROUTED_SERVICES,
  SERVICE_ROUTES,
} from '@stamp/contracts';
import {
  checkAdapters,
  portWithDefault,
  openPlatform,
  processEnvSchema,
  proxyModule,
  remoteApi,
  runMain,
  startProcess,
} from '@stamp/host';
import { z } from 'zod';

import { createGateway } from './app.ts';
import { committedOpenApiDocument } from './openapi.ts';

/**
 * Environment of the gateway process: the platform's (it reads the idempotency view), the public
 * port, where each service answers, and the public URL (the origin sessions may post from).
 */
const schema = processEnvSchema
  .extend({
    STAMP_PORT: portWithDefault(3000),
    STAMP_INTERNAL_TOKEN: z.string().min(16, 'must be at least 16 characters'),
    STAMP_ACCOUNTS_URL: z.url(),
    STAMP_CONTACTS_URL: z.url(),
    STAMP_DOMAINS_URL: z.url(),
    STAMP_SENDING_URL: z.url(),
    STAMP_ACTIVITY_URL: z.url(),
    STAMP_SEGMENTS_URL: z.url(),
    STAMP_CAMPAIGNS_URL: z.url(),
    STAMP_WORKFLOWS_URL: z.url(),
    STAMP_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).default(1000),
    STAMP_BODY_TIMEOUT_MS: z.coerce.number().int().min(100).max(3_600_000).default(60_000),
    STAMP_SMTP_RELAY: z.enum(['true', 'false']).default('false'),
    // Whether the accounts service has billing on (its STAMP_STRIPE_SECRET_KEY is set).
    STAMP_BILLING: z.enum(['true', 'false']).default('false'),
    STAMP_PUBLIC_URL: z.url().default('http://localhost:3000'),
  })
  .superRefine(checkAdapters);

/**
 * The gateway alone in its process (distributed mode): authentication against the accounts
 * service, rate limits, idempotency, and every public route forwarded to the service that owns it
 * (`SERVICE_ROUTES`) over its internal HTTP API.
 */
runMain(
  'gateway',
  schema,
  (env, logger) => {
    const urls = {
      accounts: env.STAMP_ACCOUNTS_URL,
      contacts: env.STAMP_CONTACTS_URL,
      domains: env.STAMP_DOMAINS_URL,
      sending: env.STAMP_SENDING_URL,
      activity: env.STAMP_ACTIVITY_URL,
      segments: env.STAMP_SEGMENTS_URL,
      campaigns: env.STAMP_CAMPAIGNS_URL,
      workflows: env.STAMP_WORKFLOWS_URL,
    };
    const token = env.STAMP_INTERNAL_TOKEN;
    let ready = false;
    return startProcess('gateway', env, logger, async () => {
      const platform = await openPlatform(env, logger);
      const modules = ROUTED_SERVICES.map((name) =>
        proxyModule(
          name,
          { authenticated: SERVICE_ROUTES[name], public: PUBLIC_SERVICE_ROUTES[name] },
          { url: urls[name], token },
        ),
      );
      const keys = remoteApi<KeysApi>('accounts', ['resolveKey', 'resolveSession'], {
        url: urls.accounts,
        token,
      });
      const app = createGateway({
        logger,
        keys,
        publicUrl: env.STAMP_PUBLIC_URL,
        modules,
        views: platform.views,
        rateLimit: { limit: env.STAMP_RATE_LIMIT_PER_MINUTE, windowMs: 60_000 },
        bodyTimeoutMs: env.STAMP_BODY_TIMEOUT_MS,
        isReady: () => ready,
        // The API's document as committed (docs/openapi.json): this process hosts no service.
        openApi: committedOpenApiDocument,
        dashboardFolder: DASHBOARD_DIST,
        features: {
          smtpRelay: env.STAMP_SMTP_RELAY === 'true',
          localOutbox: true,
          billing: env.STAMP_BILLING === 'true',
        },
      });
      ready = true;
      return {
        modules: [],
        app,
        close: async () => {
          ready = false;
          await platform.close();
        },
      };
    });
  },
  telemetry,
);
