// First: starts OpenTelemetry before the modules it instruments are loaded.
import { telemetry } from '@stamp/platform/telemetry/register.ts';
import type { KeysApi } from '@stamp/contracts';
import {
  checkAdapters,
  portWithDefault,
  internalApiRouter,
  processEnvSchema,
  runService,
} from '@stamp/host';
import { z } from 'zod';

import { checkBilling, stripeSettingsOf } from './billing/config.ts';
import { accountsEnv, checkBootstrapKeys, checkOidcProviders, oidcProvidersOf } from './config.ts';
import { createAccountsService } from './index.ts';

/**
 * Environment of the accounts process: the platform's, the port, optional bootstrap keys, the
 * public URL (Secure session cookies when https), whether sign-up is open, the OpenID Connect
 * providers and billing (Stripe).
 */
const schema = processEnvSchema
  .extend({
    STAMP_PORT: portWithDefault(3001),
    STAMP_BOOTSTRAP_SECRET_KEY: z.string().optional(),
    STAMP_BOOTSTRAP_PUBLIC_KEY: z.string().optional(),
    STAMP_PUBLIC_URL: z.url().default('http://localhost:3000'),
    ...accountsEnv,
  })
  .superRefine((env, context) => {
    checkAdapters(env, context);
    checkBootstrapKeys(env, context);
    checkOidcProviders(env, context);
    checkBilling(env, context);
  });

/**
 * The accounts service alone in its process (distributed mode): its routes, the key look-up the
 * gateway calls (`POST /internal/accounts/resolveKey`, `resolveSession`), and the first project's bootstrap, whose
 * keys are printed once when created.
 */
runService(
  'accounts',
  schema,
  ({ env, deps, secrets }) => {
    const accounts = createAccountsService({
      ...deps,
      secrets,
      publicUrl: env.STAMP_PUBLIC_URL,
      signupOpen: env.STAMP_SIGNUP === 'true',
      oidcProviders: oidcProvidersOf(env),
      stripe: stripeSettingsOf(env),
    });
    const methods: (keyof KeysApi)[] = ['resolveKey', 'resolveSession'];
    return {
      module: accounts,
      internal: [internalApiRouter<KeysApi>('accounts', accounts.api, methods)],
      afterStart: async () => {
        const given =
          env.STAMP_BOOTSTRAP_SECRET_KEY !== undefined &&
          env.STAMP_BOOTSTRAP_PUBLIC_KEY !== undefined
            ? {
                secretKey: env.STAMP_BOOTSTRAP_SECRET_KEY,
                publicKey: env.STAMP_BOOTSTRAP_PUBLIC_KEY,
              }
            : {};
        const bootstrap = await accounts.api.bootstrap(given);
        if (bootstrap.secretKey !== undefined && bootstrap.publicKey !== undefined) {
          process.stdout.write(
            `  Project ${bootstrap.projectId} is ready. Its API keys are shown this once:\n` +
              `    secret key: ${bootstrap.secretKey}\n    public key: ${bootstrap.publicKey}\n`,
          );
        }
      },
    };
  },
  telemetry,
);
