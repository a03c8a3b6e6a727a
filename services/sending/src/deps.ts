import type { ContactsApi, DomainsApi } from '@stamp/contracts';
import type { ServiceDeps } from '@stamp/http-kit';
import type { LeaseStore, Mailer, Secrets, TimerSettings } from '@stamp/platform';

import type { TrackingMode } from '@stamp/contracts';

import type { UploadStore } from './uploads/store.ts';

/** Limits of /v1/send (spec part 8). */
export interface SendingLimits {
  /** Decoded attachment bytes per email; default 10 MB. */
  attachmentBytes: number;
  /** Estimated whole-message bytes; default 40 MB. */
  messageBytes: number;
  /** Recipients per request; default 50. */
  recipients: number;
}

/** Delivery retry policy: delay `baseMs * 2^(attempt-1)`, failed after `maxAttempts`. */
export interface RetryPolicy {
  baseMs: number;
  maxAttempts: number;
}

/** Dependencies of the sending service (see `createSendingService`). */
export interface SendingDeps extends ServiceDeps {
  leases: LeaseStore;
  contacts: ContactsApi;
  domains: DomainsApi;
  /** SMTP relay; when absent every email goes to the local outbox. */
  relay?: Mailer;
  /** Overrides the local outbox mailer (default: an OutboxMailer on `views`). */
  outbox?: Mailer;
  /** Sender domain that needs no verification and only ever delivers to the outbox. */
  sandboxDomain?: string;
  /** Public base URL of the API, for unsubscribe/subscribe/manage links. */
  publicUrl: string;
  /**
   * The platform secret signing the recipients' subscription tokens in those links (verified by
   * the contacts service's public routes).
   */
  secrets: Secrets;
  limits?: Partial<SendingLimits>;
  retry?: Partial<RetryPolicy>;
  /** Open and click tracking of the projects' email (default `ENABLED`). */
  tracking?: TrackingMode;
  /**
   * Where the inbound SMTP listener of bounce and complaint reports listens; absent or port 0:
   * no listener.
   */
  inbound?: { host: string; port: number };
  /** The only certificate URLs an SNS message may name (default: Amazon SNS's hosts). */
  snsCertUrlPattern?: string;
  /**
   * STAMP_SYSTEM_FROM: the sender of account mail (`Name <address>` or an address); default
   * `Stamp <no-reply@` the host of `publicUrl` `>`.
   */
  systemFrom?: string;
  /**
   * Image uploads: where they are kept and the largest accepted, bytes (default 5 MiB). Absent:
   * no POST /uploads/image nor /images routes.
   */
  uploads?: { store: UploadStore; maxBytes?: number };
  /** Whether start() runs a TimerScheduler (default true); its poll interval in ms (default 200). */
  timers?: TimerSettings;
}

/** Default sandbox sender domain. */
export const DEFAULT_SANDBOX_DOMAIN = 'sandbox.stamp.localhost';

/** Default limits (spec part 8). */
export const DEFAULT_LIMITS: SendingLimits = {
  attachmentBytes: 10 * 1024 * 1024,
  messageBytes: 40 * 1024 * 1024,
  recipients: 50,
};

/** Default retry policy. */
export const DEFAULT_RETRY: RetryPolicy = { baseMs: 1000, maxAttempts: 8 };

/** Domain part of an address, lower-cased. */
export function domainOf(address: string): string {
  return (address.split('@').pop() ?? '').toLowerCase();
}
