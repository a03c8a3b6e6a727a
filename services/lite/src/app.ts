import { DASHBOARD_DIST } from '@stamp/dashboard';
import { createAccountsService, oidcProvidersOf, stripeSettingsOf } from '@stamp/accounts';
import { createCampaignsService, throttleOf } from '@stamp/campaigns';
import { createActivityService } from '@stamp/activity';
import { createContactsService } from '@stamp/contacts';
import { createDomainsService } from '@stamp/domains';
import { createGateway, listen } from '@stamp/gateway';
import type { Express } from 'express';
import { awaitViewsOf, type ServiceModule } from '@stamp/http-kit';
import {
  DnsResolver,
  type EmbeddedPlatform,
  loadOrCreateSecret,
  type Logger,
  openEmbeddedPlatform,
  Secrets,
  deliveryJournalOf,
  SmtpMailer,
} from '@stamp/platform';
import { createSegmentsService } from '@stamp/segments';
import { createSendingService, uploadStoreOf, type UploadStore } from '@stamp/sending';
import { createWorkflowsService, webhookCaller } from '@stamp/workflows';

import type { StampConfig } from './config.ts';

/** Bound of read-your-writes waits, ms (architecture brief). */
const VIEW_WAIT_MS = 2000;

/** A running embedded platform. */
export interface Stamp {
  /** Base URL of the HTTP API, for example `http://127.0.0.1:3000`. */
  url: string;
  platform: EmbeddedPlatform;
  /** Plaintext keys of the first project, only when they were just created or changed. */
  bootstrap: { created: boolean; projectId: string; publicKey?: string; secretKey?: string };
  /** The services, in the gateway's mounting order (their routers are what the API answers). */
  modules: readonly ServiceModule[];
  /** The gateway's Express app, its own routes and every module's routers mounted. */
  gateway: Express;
  /** Graceful stop: stops accepting requests, finishes those in flight, then the background work. */
  close(): Promise<void>;
}

/** The services of one process on the embedded platform, created but not started. */
export interface Services {
  modules: ServiceModule[];
  accounts: ReturnType<typeof createAccountsService>;
  /** The SMTP relay, when `STAMP_SMTP_URL` is set. */
  relay: SmtpMailer | undefined;
  /** Where uploaded images are kept (`STAMP_S3_BUCKET`, else `<STAMP_DATA_DIR>/uploads`). */
  uploads: UploadStore;
}

/**
 * Creates every service on the embedded platform (architecture brief, embedded mode), in the
 * order the gateway mounts them. The platform secret is `STAMP_SECRET`, else
 * `<STAMP_DATA_DIR>/secret.key` (created on first start).
 */
export function createServices(
  config: StampConfig,
  platform: EmbeddedPlatform,
  logger: Logger,
): Services {
  // One project-wide secret: signs subscription links, seals DKIM private keys.
  const secrets = new Secrets(config.STAMP_SECRET ?? loadOrCreateSecret(config.STAMP_DATA_DIR));
  const { store, bus, views, leases } = platform;
  const modules: ServiceModule[] = [];
  const awaitViews = awaitViewsOf(modules, VIEW_WAIT_MS);
  const resolver = new DnsResolver({ servers: config.STAMP_DNS_SERVERS });
  const publicUrl = config.STAMP_PUBLIC_URL ?? `http://localhost:${config.STAMP_PORT}`;
  const base = { store, bus, views, logger, awaitViews };

  const accounts = createAccountsService({
    ...base,
    secrets,
    publicUrl,
    signupOpen: config.STAMP_SIGNUP === 'true',
    oidcProviders: oidcProvidersOf(config),
    stripe: stripeSettingsOf(config),
  });
  const contacts = createContactsService({ ...base, resolver, secrets });
  // The return paths' MX: the host that runs the inbound SMTP listener, as recipients reach it.
  const domains = createDomainsService({
    ...base,
    resolver,
    secrets,
    options: { mxHost: new URL(publicUrl).hostname },
  });
  const relay =
    config.STAMP_SMTP_URL === undefined
      ? undefined
      : new SmtpMailer({
          url: config.STAMP_SMTP_URL,
          maxConnections: config.STAMP_SMTP_POOL_SIZE,
          rejectUnauthorized: config.STAMP_SMTP_TLS_REJECT_UNAUTHORIZED === 'true',
          journal: deliveryJournalOf(config.STAMP_DATA_DIR),
          durability: config.STAMP_DURABILITY,
        });
  const uploads = uploadStoreOf(config, config.STAMP_DATA_DIR);
  const sending = createSendingService({
    ...base,
    leases,
    contacts: contacts.api,
    domains: domains.api,
    relay,
    sandboxDomain: config.STAMP_SANDBOX_DOMAIN,
    publicUrl,
    secrets,
    tracking: config.STAMP_TRACKING,
    inbound: {
      host: config.STAMP_INBOUND_SMTP_HOST ?? config.STAMP_HOST,
      port: config.STAMP_INBOUND_SMTP_PORT,
    },
    snsCertUrlPattern: config.STAMP_SNS_CERT_URL_PATTERN,
    ...(config.STAMP_SYSTEM_FROM === undefined ? {} : { systemFrom: config.STAMP_SYSTEM_FROM }),
    uploads: { store: uploads, maxBytes: config.STAMP_UPLOAD_MAX_BYTES },
  });
  modules.push(accounts, contacts, domains, sending);
  const allowPrivateTargets = config.STAMP_ALLOW_PRIVATE_TARGETS === 'true';
  modules.push(createActivityService({ ...base, leases, secrets, resolver, allowPrivateTargets }));
  const segments = createSegmentsService({ ...base, leases, contacts: contacts.api });
  modules.push(segments);
  modules.push(
    createCampaignsService({
      ...base,
      leases,
      segments: segments.api,
      sending: sending.api,
      throttle: throttleOf(config),
    }),
  );
  modules.push(
    createWorkflowsService({
      ...base,
      leases,
      sending: sending.api,
      contacts: contacts.api,
      webhook: webhookCaller(resolver, allowPrivateTargets),
    }),
  );
  return { modules, accounts, relay, uploads };
}

/**
 * Starts every service in one process on the embedded adapters (architecture brief, embedded
 * mode): event store, bus, views and timers on one SQLite database in `STAMP_DATA_DIR`, the
 * gateway on `STAMP_HOST:STAMP_PORT`.
 */
export async function startStamp(config: StampConfig, logger: Logger): Promise<Stamp> {
  const platform = openEmbeddedPlatform({
    dataDir: config.STAMP_DATA_DIR,
    logger,
    synchronous: config.STAMP_DURABILITY,
    cacheMb: config.STAMP_CACHE_MB,
  });
  const { views } = platform;
  const { modules, accounts, relay, uploads } = createServices(config, platform, logger);
  for (const module of modules) await module.start();

  const given =
    config.STAMP_BOOTSTRAP_SECRET_KEY !== undefined &&
    config.STAMP_BOOTSTRAP_PUBLIC_KEY !== undefined
      ? {
          secretKey: config.STAMP_BOOTSTRAP_SECRET_KEY,
          publicKey: config.STAMP_BOOTSTRAP_PUBLIC_KEY,
        }
      : {};
  const bootstrap = await accounts.api.bootstrap(given);

  let ready = false;
  const app = createGateway({
    logger,
    keys: accounts.api,
    publicUrl: config.STAMP_PUBLIC_URL ?? `http://localhost:${config.STAMP_PORT}`,
    modules,
    views,
    rateLimit: { limit: config.STAMP_RATE_LIMIT_PER_MINUTE, windowMs: 60_000 },
    bodyTimeoutMs: config.STAMP_BODY_TIMEOUT_MS,
    isReady: () => ready,
    // The route documents (and their response schemas) load at the first request for them.
    openApi: async () => (await import('./openapi.ts')).stampOpenApiDocument(),
    dashboardFolder: DASHBOARD_DIST,
    features: {
      smtpRelay: relay !== undefined,
      localOutbox: true,
      billing: config.STAMP_STRIPE_SECRET_KEY !== undefined,
    },
  });
  const server = await listen(app, { port: config.STAMP_PORT, host: config.STAMP_HOST });
  ready = true;

  return {
    url: server.url,
    platform,
    bootstrap,
    modules,
    gateway: app,
    async close() {
      ready = false;
      await server.close();
      for (const module of [...modules].reverse()) await module.stop();
      await relay?.close();
      await uploads.close();
      await platform.close();
    },
  };
}
