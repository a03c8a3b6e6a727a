import { z } from 'zod';

/** A comma-separated list variable (`a, b,c` → `['a', 'b', 'c']`); unset is `[]`. */
export const commaList = z
  .string()
  .optional()
  .transform((value) =>
    (value ?? '')
      .split(',')
      .map((part) => part.trim())
      .filter(Boolean),
  );

/** A TCP port variable with the process's default port. */
export const portWithDefault = (port: number) =>
  z.coerce.number().int().min(0).max(65535).default(port);

/**
 * Environment of one Stamp process in either mode (architecture brief, "Two modes"): which
 * adapter serves each port, where the engines are, and how the process is reached. Each service's
 * entry point extends it with its own variables.
 */
export const processEnvSchema = z.object({
  STAMP_HOST: z.string().min(1).default('127.0.0.1'),
  STAMP_PORT: z.coerce.number().int().min(0).max(65535),
  STAMP_LOG_LEVEL: z
    .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
    .default('info'),
  /** Directory of the embedded store (`stamp.db`), shared by the processes of one host. */
  STAMP_DATA_DIR: z.string().min(1).default('.data'),
  STAMP_DURABILITY: z.enum(['NORMAL', 'FULL']).default('NORMAL'),
  /** SQLite page cache of the embedded store, MiB. */
  STAMP_CACHE_MB: z.coerce.number().int().min(2).max(65536).default(64),
  STAMP_EVENT_STORE: z.enum(['embedded', 'kurrentdb']).default('embedded'),
  STAMP_KURRENTDB_URL: z.string().min(1).optional(),
  STAMP_BUS: z.enum(['embedded', 'kafka']).default('embedded'),
  STAMP_KAFKA_BROKERS: commaList,
  STAMP_KAFKA_TOPIC_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9._-]*$/, 'letters, digits, dot, underscore or dash')
    .default('stamp.'),
  STAMP_KAFKA_PARTITIONS: z.coerce.number().int().min(1).max(1000).default(6),
  STAMP_VIEWS: z.enum(['embedded', 'mongodb']).default('embedded'),
  STAMP_MONGODB_URL: z
    .string()
    .regex(/^mongodb(\+srv)?:\/\//, 'must start with mongodb:// or mongodb+srv://')
    .optional(),
  /** Signs links in emails and seals DKIM keys; the same value in every process. */
  STAMP_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  /** Authenticates calls between processes (internal HTTP APIs); the same value everywhere. */
  STAMP_INTERNAL_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
});

/** Validated process environment. */
export type ProcessEnv = z.infer<typeof processEnvSchema>;

/**
 * Cross-field rules of {@link processEnvSchema}: each chosen engine needs its address, and the
 * embedded bus reads the embedded event log. Use with `.superRefine`.
 */
export function checkAdapters(env: ProcessEnv, context: z.RefinementCtx): void {
  const need = (when: boolean, variable: string, message: string): void => {
    if (when) context.addIssue({ code: 'custom', path: [variable], message });
  };
  need(
    env.STAMP_EVENT_STORE === 'kurrentdb' && env.STAMP_KURRENTDB_URL === undefined,
    'STAMP_KURRENTDB_URL',
    'required when STAMP_EVENT_STORE=kurrentdb',
  );
  need(
    env.STAMP_BUS === 'kafka' && env.STAMP_KAFKA_BROKERS.length === 0,
    'STAMP_KAFKA_BROKERS',
    'required when STAMP_BUS=kafka',
  );
  need(
    env.STAMP_VIEWS === 'mongodb' && env.STAMP_MONGODB_URL === undefined,
    'STAMP_MONGODB_URL',
    'required when STAMP_VIEWS=mongodb',
  );
  need(
    env.STAMP_BUS === 'embedded' && env.STAMP_EVENT_STORE !== 'embedded',
    'STAMP_BUS',
    'the embedded bus reads the embedded event store; use kafka with kurrentdb',
  );
  need(
    env.STAMP_EVENT_STORE === 'kurrentdb' && env.STAMP_VIEWS !== 'mongodb',
    'STAMP_VIEWS',
    'checkpoints and leases live in MongoDB when the event store is KurrentDB',
  );
}
