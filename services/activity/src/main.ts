// First: starts OpenTelemetry before the modules it instruments are loaded.
import { telemetry } from '@stamp/platform/telemetry/register.ts';
import { checkAdapters, processEnvSchema, runService } from '@stamp/host';
import { z } from 'zod';

import { createActivityService } from './index.ts';

/** Environment of the activity process: the platform's and the port. */
const schema = processEnvSchema
  .extend({ STAMP_PORT: z.coerce.number().int().min(0).max(65535).default(3005) })
  .superRefine(checkAdapters);

/** The activity service alone in its process (distributed mode): the feed and its projection. */
runService('activity', schema, ({ deps }) => ({ module: createActivityService(deps) }), telemetry);
