// First: starts OpenTelemetry before the modules it instruments are loaded.
import { telemetry } from '@stamp/platform/telemetry/register.ts';
import type { CampaignEmailsApi, SegmentsApi } from '@stamp/contracts';
import {
  checkAdapters,
  portWithDefault,
  processEnvSchema,
  remoteApi,
  runService,
} from '@stamp/host';
import { z } from 'zod';

import { campaignThrottleEnv, throttleOf } from './config.ts';
import { createCampaignsService } from './service.ts';

/**
 * Environment of the campaigns process: the platform's, the port, where the segments and sending
 * services answer, and the campaign throttle.
 */
const schema = processEnvSchema
  .extend({
    STAMP_PORT: portWithDefault(3008),
    STAMP_SEGMENTS_URL: z.url(),
    STAMP_SENDING_URL: z.url(),
    ...campaignThrottleEnv,
  })
  .superRefine(checkAdapters);

/**
 * The campaigns service alone in its process (distributed mode): the campaign routes, their
 * projection, the dispatcher and the scheduler of campaign timers. It reaches the segments and
 * sending services over their internal HTTP APIs.
 */
runService(
  'campaigns',
  schema,
  ({ env, deps, platform }) => {
    const token = env.STAMP_INTERNAL_TOKEN ?? '';
    const segments = remoteApi<SegmentsApi>('segments', ['checkAudience', 'audiencePage'], {
      url: env.STAMP_SEGMENTS_URL,
      token,
    });
    const sending = remoteApi<CampaignEmailsApi>(
      'sending',
      ['checkSender', 'queueCampaignEmails', 'sendCampaignTest'],
      { url: env.STAMP_SENDING_URL, token, timeoutMs: 60_000 },
    );
    return {
      module: createCampaignsService({
        ...deps,
        leases: platform.leases,
        segments,
        sending,
        throttle: throttleOf(env),
      }),
    };
  },
  telemetry,
);
