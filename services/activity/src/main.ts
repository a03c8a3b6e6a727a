// First: starts OpenTelemetry before the modules it instruments are loaded.
import { telemetry } from '@stamp/platform/telemetry/register.ts';
import {
  checkAdapters,
  commaList,
  portWithDefault,
  processEnvSchema,
  runService,
} from '@stamp/host';
import { DnsResolver, privateTargetsEnv } from '@stamp/platform';

import { createActivityService } from './index.ts';

/**
 * Environment of the activity process: the platform's, the port, the DNS servers that resolve
 * webhook endpoints and whether those may be private addresses.
 */
const schema = processEnvSchema
  .extend({
    STAMP_PORT: portWithDefault(3005),
    STAMP_DNS_SERVERS: commaList,
    ...privateTargetsEnv,
  })
  .superRefine(checkAdapters);

/**
 * The activity service alone in its process (distributed mode): the feed and its projection,
 * webhook endpoints, their dispatch and the delivery worker.
 */
runService(
  'activity',
  schema,
  ({ env, deps, platform, secrets }) => ({
    module: createActivityService({
      ...deps,
      leases: platform.leases,
      secrets,
      resolver: new DnsResolver({ servers: env.STAMP_DNS_SERVERS }),
      allowPrivateTargets: env.STAMP_ALLOW_PRIVATE_TARGETS === 'true',
    }),
  }),
  telemetry,
);
