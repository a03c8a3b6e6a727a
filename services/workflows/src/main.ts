// First: starts OpenTelemetry before the modules it instruments are loaded.
import { telemetry } from '@stamp/platform/telemetry/register.ts';
import type { ContactsApi, WorkflowEmailsApi } from '@stamp/contracts';
import {
  checkAdapters,
  commaList,
  portWithDefault,
  processEnvSchema,
  remoteApi,
  runService,
} from '@stamp/host';
import { DnsResolver, privateTargetsEnv } from '@stamp/platform';
import { z } from 'zod';

import { webhookCaller } from './config.ts';
import { createWorkflowsService } from './service.ts';

/**
 * Environment of the workflows process: the platform's, the port, where the sending and contacts
 * services answer, and whether WEBHOOK steps may reach private addresses.
 */
const schema = processEnvSchema
  .extend({
    STAMP_PORT: portWithDefault(3009),
    STAMP_SENDING_URL: z.url(),
    STAMP_CONTACTS_URL: z.url(),
    STAMP_DNS_SERVERS: commaList,
    ...privateTargetsEnv,
  })
  .superRefine(checkAdapters);

/**
 * The workflows service alone in its process (distributed mode): the workflow routes, their
 * projections, the trigger consumer, the engine and the scheduler of wait timers. It reaches the
 * sending and contacts services over their internal HTTP APIs.
 */
runService(
  'workflows',
  schema,
  ({ env, deps, platform }) => {
    const token = env.STAMP_INTERNAL_TOKEN ?? '';
    const sending = remoteApi<WorkflowEmailsApi>(
      'sending',
      ['templateExists', 'queueWorkflowEmail'],
      { url: env.STAMP_SENDING_URL, token },
    );
    const contacts = remoteApi<ContactsApi>('contacts', ['upsertRecipient'], {
      url: env.STAMP_CONTACTS_URL,
      token,
    });
    const resolver = new DnsResolver({ servers: env.STAMP_DNS_SERVERS });
    return {
      module: createWorkflowsService({
        ...deps,
        leases: platform.leases,
        sending,
        contacts,
        webhook: webhookCaller(resolver, env.STAMP_ALLOW_PRIVATE_TARGETS === 'true'),
      }),
    };
  },
  telemetry,
);
