import { portWithDefault } from '@stamp/host';
import { z } from 'zod';

import { TRACKING_MODES } from './tracking/links.ts';

/**
 * Environment variables of the sending service in both modes (README "Configuration"):
 * `STAMP_TRACKING`, the open and click tracking of projects (`ENABLED`, `DISABLED` or
 * `MARKETING_ONLY`: campaign email and MARKETING templates only; default `ENABLED`);
 * `STAMP_INBOUND_SMTP_PORT` (default 2525; 0 turns the listener off) and
 * `STAMP_INBOUND_SMTP_HOST` (default `STAMP_HOST`), where the inbound SMTP listener of bounce
 * and complaint reports listens.
 */
export const sendingEnv = {
  STAMP_TRACKING: z.enum(TRACKING_MODES).default('ENABLED'),
  STAMP_INBOUND_SMTP_PORT: portWithDefault(2525),
  STAMP_INBOUND_SMTP_HOST: z.string().min(1).optional(),
};
