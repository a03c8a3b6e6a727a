// The configuration module alone: the package's index loads every distributed adapter.
import { portWithDefault } from '@stamp/host/config.ts';
import { z } from 'zod';

import { TRACKING_MODES } from '@stamp/contracts';

import {
  DEFAULT_S3_REGION,
  DEFAULT_UPLOAD_MAX_BYTES,
  MAX_UPLOAD_MAX_BYTES,
} from './uploads/settings.ts';

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
 * sender of account mail (default `Stamp <no-reply@` the host of the public URL `>`);
 * `STAMP_UPLOAD_MAX_BYTES`, the largest image POST /uploads/image accepts (bytes, default 5 MiB,
 * at most 50 MiB); `STAMP_S3_BUCKET` (unset: images on the local disk under
 * `<STAMP_DATA_DIR>/uploads`), `STAMP_S3_ENDPOINT` (an S3-compatible service's base URL; unset:
 * Amazon S3), `STAMP_S3_REGION` (default `us-east-1`) and `STAMP_S3_FORCE_PATH_STYLE` (`true` or
 * `false`, default `false`), where uploaded images are kept.
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
  STAMP_UPLOAD_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(MAX_UPLOAD_MAX_BYTES)
    .default(DEFAULT_UPLOAD_MAX_BYTES),
  STAMP_S3_BUCKET: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{2,254}$/, 'must be a bucket name (letters, digits, . _ -)')
    .optional(),
  STAMP_S3_ENDPOINT: z
    .url()
    .refine((value) => /^https?:\/\//.test(value), 'must start with http:// or https://')
    .optional(),
  STAMP_S3_REGION: z
    .string()
    .regex(/^[a-z0-9-]{1,64}$/, 'must be a region name such as us-east-1')
    .default(DEFAULT_S3_REGION),
  STAMP_S3_FORCE_PATH_STYLE: z.enum(['true', 'false']).default('false'),
};
