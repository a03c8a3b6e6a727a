// First: starts OpenTelemetry before the modules it instruments are loaded.
import { telemetry } from '@stamp/platform/telemetry/register.ts';
import { checkAdapters, portWithDefault, processEnvSchema, runService } from '@stamp/host';

import { createActivityService } from './index.ts';

/** Environment of the activity process: the platform's and the port. */
const schema = processEnvSchema
  .extend({ STAMP_PORT: portWithDefault(3005) })
  .superRefine(checkAdapters);

/** The activity service alone in its process (distributed mode): the feed and its projection. */
runService('activity', schema, ({ deps }) => ({ module: createActivityService(deps) }), telemetry);
