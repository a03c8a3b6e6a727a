/**
 * The campaign throttle's configuration variables, shared by the embedded platform and the
 * campaigns process.
 */
import { z } from 'zod';

import type { CampaignThrottle } from './campaigns/dispatch.ts';

/**
 * `STAMP_CAMPAIGN_RATE_PER_SECOND`: campaign emails handed to delivery per second and project
 * (default 1000); `STAMP_CAMPAIGN_MAX_IN_FLIGHT`: a campaign's emails awaiting their first
 * delivery attempt before the next batch waits (default 1000), which bounds how long a
 * transactional email queued during a campaign waits.
 */
export const campaignThrottleEnv = {
  STAMP_CAMPAIGN_RATE_PER_SECOND: z.coerce.number().int().min(1).max(100_000).default(1000),
  STAMP_CAMPAIGN_MAX_IN_FLIGHT: z.coerce.number().int().min(1).max(1_000_000).default(1000),
};

/** The throttle of those variables. */
export function throttleOf(env: {
  STAMP_CAMPAIGN_RATE_PER_SECOND: number;
  STAMP_CAMPAIGN_MAX_IN_FLIGHT: number;
}): Partial<CampaignThrottle> {
  return {
    ratePerSecond: env.STAMP_CAMPAIGN_RATE_PER_SECOND,
    maxInFlight: env.STAMP_CAMPAIGN_MAX_IN_FLIGHT,
  };
}
