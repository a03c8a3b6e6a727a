import { portWithDefault } from '@stamp/host';
import { z } from 'zod';

import { TRACKING_MODES } from '@stamp/contracts';

/** The SNS certificate URLs trusted by default (API reference, configuration). */
export const DEFAULT_SNS_CERT_URL_PATTERN = String.raw`^https://sns\.[a-z0-9-]+\.amazonaws\.com(\.cn)?/`;

/**
 * Environment variables of the sending service in both modes (README "Configuration"):
 * `STAMP_TRACKING`, the open and click tracking of projects (`ENABLED`, `DISABLED` or
 * `MARKETING_ONLY`: campaign email and MARKETING templates only; default `ENABLED`);
 * `STAMP_INBOUND_SMTP_PORT` (default 2525; 0 turns the listener off) and
 * `STAMP_INBOUND_SMTP_HOST` (default `STAMP_HOST`), where the inbound SMTP listener of bounce
 * and complaint reports listens; `STAMP_SNS_CERT_URL_PATTERN`, the only certificate URLs an SNS
 * message may name (a regular expression; default: Amazon SNS's hosts); `STAMP_SYSTEM_FROM`, the
 * sender of account mail (default `Stamp <no-reply@` the host of the public URL `>`).
 */
export const sendingEnv = {
  STAMP_SYSTEM_FROM: z.string().min(3).max(320).optional(),
  STAMP_TRACKING: z.enum(TRACKING_MODES).default('ENABLED'),
  STAMP_INBOUND_SMTP_PORT: portWithDefault(2525),
  STAMP_INBOUND_SMTP_HOST: z.string().min(1).optional(),
  STAMP_SNS_CERT_URL_PATTERN: z
    .string()
    .default(DEFAULT_SNS_CERT_URL_PATTERN)
    .refine((pattern) => {
      try {
        new RegExp(pattern);
        return true;
      } catch {
        return false;
      }
    }, 'must be a regular expression'),
};
