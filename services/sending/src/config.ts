import { z } from 'zod';

import { TRACKING_MODES } from './tracking/links.ts';

/**
 * Environment variables of the sending service in both modes (README "Configuration"):
 * `STAMP_TRACKING`, the open and click tracking of projects (`ENABLED`, `DISABLED` or
 * `MARKETING_ONLY`: campaign email and MARKETING templates only; default `ENABLED`).
 */
export const sendingEnv = {
  STAMP_TRACKING: z.enum(TRACKING_MODES).default('ENABLED'),
};
