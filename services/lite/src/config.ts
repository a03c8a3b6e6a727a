import {
  accountsEnv,
  checkBilling,
  checkBootstrapKeys,
  checkOidcProviders,
  isValidKey,
} from '@stamp/accounts';
import { campaignThrottleEnv } from '@stamp/campaigns';
import { sendingEnv } from '@stamp/sending';
import { loadConfig, privateTargetsEnv } from '@stamp/platform';
import { z } from 'zod';

const hostPort = /^(\[[0-9a-fA-F:]+\]|[A-Za-z0-9.-]+)(:\d{1,5})?$/;
const key = (kind: 'public' | 'secret') =>
  z
    .string()
    .refine((value) => isValidKey(kind, value), {
      message: `must look like ${kind === 'public' ? 'pk' : 'sk'}_ followed by 16-64 letters or digits`,
    })
    .optional();

/**
 * Environment variables of the embedded platform (README "Configuration"). Each is validated at
 * start; a bad value stops the process with a message naming it.
 */
export const configSchema = z
  .object({
    STAMP_PORT: z.coerce.number().int().min(0).max(65535).default(3000),
    STAMP_HOST: z.string().min(1).default('127.0.0.1'),
    STAMP_DATA_DIR: z.string().min(1).default('.data'),
    STAMP_PUBLIC_URL: z.url().optional(),
    // Signs links in emails and encrypts DKIM keys; `<STAMP_DATA_DIR>/secret.key` when unset.
    STAMP_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
    STAMP_SMTP_URL: z
      .url()
      .refine((value) => /^smtps?:\/\//.test(value), 'must start with smtp:// or smtps://')
      .optional(),
    STAMP_SMTP_POOL_SIZE: z.coerce.number().int().min(1).max(100).default(5),
    STAMP_SMTP_TLS_REJECT_UNAUTHORIZED: z.enum(['true', 'false']).default('true'),
    STAMP_DNS_SERVERS: z
      .string()
      .optional()
      .transform((value) =>
        (value ?? '')
          .split(',')
          .map((part) => part.trim())
          .filter(Boolean),
      )
      .refine(
        (servers) => servers.every((server) => hostPort.test(server)),
        'must be a comma-separated list of host or host:port',
      ),
    STAMP_BOOTSTRAP_SECRET_KEY: key('secret'),
    STAMP_BOOTSTRAP_PUBLIC_KEY: key('public'),
    STAMP_SANDBOX_DOMAIN: z
      .string()
      .regex(/^[a-z0-9.-]+$/)
      .default('sandbox.stamp.localhost'),
    STAMP_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).default(1000),
    // Time a client has to send a request body, ms (408 REQUEST_TIMEOUT beyond).
    STAMP_BODY_TIMEOUT_MS: z.coerce.number().int().min(100).max(3_600_000).default(60_000),
    STAMP_LOG_LEVEL: z
      .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
      .default('info'),
    STAMP_DURABILITY: z.enum(['NORMAL', 'FULL']).default('NORMAL'),
    /** SQLite page cache of the embedded store, MiB. */
    ...campaignThrottleEnv,
    ...privateTargetsEnv,
    ...accountsEnv,
    ...sendingEnv,
    STAMP_CACHE_MB: z.coerce.number().int().min(2).max(65536).default(64),
  })
  .superRefine((env, context) => {
    checkBootstrapKeys(env, context);
    checkOidcProviders(env, context);
    checkBilling(env, context);
  });

/** Validated configuration. */
export type StampConfig = z.infer<typeof configSchema>;

/**
 * Reads and validates the configuration from `env`.
 * @throws ConfigError naming every bad variable.
 */
export function readConfig(env: Record<string, string | undefined> = process.env): StampConfig {
  return loadConfig(configSchema, env);
}
