// First: starts OpenTelemetry before the modules it instruments are loaded.
import { telemetry } from '@stamp/platform/telemetry/register.ts';
import type {
  CampaignEmailsApi,
  ContactsApi,
  DomainsApi,
  WorkflowEmailsApi,
} from '@stamp/contracts';
import {
  checkAdapters,
  internalApiRouter,
  portWithDefault,
  processEnvSchema,
  remoteApi,
  runService,
} from '@stamp/host';
import { deliveryJournalOf, SmtpMailer } from '@stamp/platform';
import { z } from 'zod';

import { createSendingService, sendingEnv } from './index.ts';
import { uploadStoreOf } from './uploads/settings.ts';

/**
 * Environment of the sending process: the platform's, the port, where the contacts and domains
 * services answer, the SMTP relay, the public URL of links in emails and images, and (in
 * `sendingEnv`) where uploaded images are kept.
 */
const schema = processEnvSchema
  .extend({
    STAMP_PORT: portWithDefault(3004),
    ...sendingEnv,
    STAMP_CONTACTS_URL: z.url(),
    STAMP_DOMAINS_URL: z.url(),
    STAMP_PUBLIC_URL: z.url(),
    STAMP_SMTP_URL: z
      .url()
      .refine((value) => /^smtps?:\/\//.test(value), 'must start with smtp:// or smtps://')
      .optional(),
    STAMP_SMTP_POOL_SIZE: z.coerce.number().int().min(1).max(100).default(5),
    STAMP_SMTP_TLS_REJECT_UNAUTHORIZED: z.enum(['true', 'false']).default('true'),
    STAMP_SANDBOX_DOMAIN: z
      .string()
      .regex(/^[a-z0-9.-]+$/)
      .default('sandbox.stamp.localhost'),
  })
  .superRefine(checkAdapters);

/**
 * The sending service alone in its process (distributed mode): /v1/send, templates, the outbox,
 * delivery, and image uploads (POST /uploads/image, public GET /images/…). It reaches the contacts and domains services over their internal HTTP APIs.
 */
runService(
  'sending',
  schema,
  ({ env, deps, platform, secrets }) => {
    const token = env.STAMP_INTERNAL_TOKEN ?? '';
    const contacts = remoteApi<ContactsApi>('contacts', ['upsertRecipient'], {
      url: env.STAMP_CONTACTS_URL,
      token,
    });
    const domains = remoteApi<DomainsApi>('domains', ['senderDomain', 'receivingDomain'], {
      url: env.STAMP_DOMAINS_URL,
      token,
    });
    const relay =
      env.STAMP_SMTP_URL === undefined
        ? undefined
        : new SmtpMailer({
            url: env.STAMP_SMTP_URL,
            maxConnections: env.STAMP_SMTP_POOL_SIZE,
            rejectUnauthorized: env.STAMP_SMTP_TLS_REJECT_UNAUTHORIZED === 'true',
            journal: deliveryJournalOf(env.STAMP_DATA_DIR),
            durability: env.STAMP_DURABILITY,
          });
    // One store per process: a bucket shared by every replica, or this process's data folder.
    const uploads = uploadStoreOf(env, env.STAMP_DATA_DIR);
    const sending = createSendingService({
      ...deps,
      leases: platform.leases,
      contacts,
      domains,
      relay,
      sandboxDomain: env.STAMP_SANDBOX_DOMAIN,
      publicUrl: env.STAMP_PUBLIC_URL,
      secrets,
      tracking: env.STAMP_TRACKING,
      inbound: {
        host: env.STAMP_INBOUND_SMTP_HOST ?? env.STAMP_HOST,
        port: env.STAMP_INBOUND_SMTP_PORT,
      },
      snsCertUrlPattern: env.STAMP_SNS_CERT_URL_PATTERN,
      ...(env.STAMP_SYSTEM_FROM === undefined ? {} : { systemFrom: env.STAMP_SYSTEM_FROM }),
      uploads: { store: uploads, maxBytes: env.STAMP_UPLOAD_MAX_BYTES },
    });
    const methods: (keyof (CampaignEmailsApi & WorkflowEmailsApi))[] = [
      'checkSender',
      'queueCampaignEmails',
      'sendCampaignTest',
      'templateExists',
      'queueWorkflowEmail',
    ];
    return {
      module: sending,
      internal: [
        internalApiRouter<CampaignEmailsApi & WorkflowEmailsApi>('sending', sending.api, methods),
      ],
      close: async () => {
        await relay?.close();
        await uploads.close();
      },
    };
  },
  telemetry,
);
