// First: starts OpenTelemetry before the modules it instruments are loaded.
import { telemetry } from '@stamp/platform/telemetry/register.ts';
import type { DomainsApi } from '@stamp/contracts';
import {
  checkAdapters,
  commaList,
  portWithDefault,
  internalApiRouter,
  processEnvSchema,
  runService,
} from '@stamp/host';
import { DnsResolver } from '@stamp/platform';
import { z } from 'zod';

import { createDomainsService } from './index.ts';

/**
 * Environment of the domains process: the platform's, the port, the DNS servers it checks, and
 * the public URL, whose host receives the return paths' mail (their MX record).
 */
const schema = processEnvSchema
  .extend({
    STAMP_PORT: portWithDefault(3003),
    STAMP_DNS_SERVERS: commaList,
    STAMP_PUBLIC_URL: z.url().optional(),
  })
  .superRefine(checkAdapters);

/**
 * The domains service alone in its process (distributed mode): sender domains and their checks,
 * and `POST /internal/domains/senderDomain` for sending.
 */
runService(
  'domains',
  schema,
  ({ env, deps, secrets }) => {
    const resolver = new DnsResolver({ servers: env.STAMP_DNS_SERVERS });
    const domains = createDomainsService({
      ...deps,
      resolver,
      secrets,
      ...(env.STAMP_PUBLIC_URL === undefined
        ? {}
        : { options: { mxHost: new URL(env.STAMP_PUBLIC_URL).hostname } }),
    });
    const methods: (keyof DomainsApi)[] = ['senderDomain', 'receivingDomain'];
    return {
      module: domains,
      internal: [internalApiRouter<DomainsApi>('domains', domains.api, methods)],
    };
  },
  telemetry,
);
