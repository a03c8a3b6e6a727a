// First: starts OpenTelemetry before the modules it instruments are loaded.
import { telemetry } from '@stamp/platform/telemetry/register.ts';
import type { ContactsApi, SegmentsApi } from '@stamp/contracts';
import {
  checkAdapters,
  internalApiRouter,
  portWithDefault,
  processEnvSchema,
  remoteApi,
  runService,
} from '@stamp/host';
import { z } from 'zod';

import { createSegmentsService } from './service.ts';

/** Environment of the segments process: the platform's, the port, where contacts answers. */
const schema = processEnvSchema
  .extend({
    STAMP_PORT: portWithDefault(3007),
    STAMP_CONTACTS_URL: z.url(),
  })
  .superRefine(checkAdapters);

/**
 * The segments service alone in its process (distributed mode): the segment routes and their
 * projections, and `POST /internal/segments/<checkAudience|audiencePage>` for campaigns. It
 * reaches the contacts service over its internal HTTP API.
 */
runService(
  'segments',
  schema,
  ({ env, deps, platform }) => {
    const contacts = remoteApi<ContactsApi>('contacts', ['upsertRecipient'], {
      url: env.STAMP_CONTACTS_URL,
      token: env.STAMP_INTERNAL_TOKEN ?? '',
    });
    const segments = createSegmentsService({ ...deps, leases: platform.leases, contacts });
    const methods: (keyof SegmentsApi)[] = ['checkAudience', 'audiencePage'];
    return {
      module: segments,
      internal: [internalApiRouter<SegmentsApi>('segments', segments.api, methods)],
    };
  },
  telemetry,
);
