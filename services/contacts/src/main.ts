// First: starts OpenTelemetry before the modules it instruments are loaded.
import { telemetry } from '@stamp/platform/telemetry/register.ts';
import type { ContactsApi } from '@stamp/contracts';
import {
  checkAdapters,
  commaList,
  portWithDefault,
  internalApiRouter,
  processEnvSchema,
  runService,
} from '@stamp/host';
import { DnsResolver } from '@stamp/platform';

import { createContactsService } from './index.ts';

/** Environment of the contacts process: the platform's, the port, the DNS servers of /v1/verify. */
const schema = processEnvSchema
  .extend({
    STAMP_PORT: portWithDefault(3002),
    STAMP_DNS_SERVERS: commaList,
  })
  .superRefine(checkAdapters);

/**
 * The contacts service alone in its process (distributed mode): contacts, tracking, events,
 * verification, subscription pages, and `POST /internal/contacts/upsertRecipient` for sending.
 */
runService(
  'contacts',
  schema,
  ({ env, deps, secrets }) => {
    const resolver = new DnsResolver({ servers: env.STAMP_DNS_SERVERS });
    const contacts = createContactsService({ ...deps, resolver, secrets });
    const methods: (keyof ContactsApi)[] = ['upsertRecipient'];
    return {
      module: contacts,
      internal: [internalApiRouter<ContactsApi>('contacts', contacts.api, methods)],
    };
  },
  telemetry,
);
