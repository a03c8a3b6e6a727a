/**
 * The OpenAPI 3.1 document of the whole HTTP API (architecture brief, "Contracts"): every
 * service's routes (`<SERVICE>_ROUTES`, built on the zod schemas its handlers validate with) and
 * the gateway's own. `./pnpmw -s stamp openapi > docs/openapi.json` writes it; the gateway
 * serves it at `GET /openapi.json` with the reference page at `GET /docs`.
 */
import { ACCOUNTS_ROUTES } from '@stamp/accounts/openapi';
import { ACTIVITY_ROUTES } from '@stamp/activity/openapi';
import { CAMPAIGNS_ROUTES } from '@stamp/campaigns/openapi';
import { CONTACTS_ROUTES } from '@stamp/contacts/openapi';
import { DOMAINS_ROUTES } from '@stamp/domains/openapi';
import { GATEWAY_ROUTES } from '@stamp/gateway';
import { type OpenApiDocument, openApiDocument, type ServiceRoutes } from '@stamp/http-kit';
import { SEGMENTS_ROUTES } from '@stamp/segments/openapi';
import { SENDING_ROUTES } from '@stamp/sending/openapi';
import { WORKFLOWS_ROUTES } from '@stamp/workflows/openapi';

/** Every documented route, by the service that answers it. */
export const STAMP_ROUTES: readonly ServiceRoutes[] = [
  { service: 'gateway', routes: GATEWAY_ROUTES },
  { service: 'accounts', routes: ACCOUNTS_ROUTES },
  { service: 'contacts', routes: CONTACTS_ROUTES },
  { service: 'domains', routes: DOMAINS_ROUTES },
  { service: 'sending', routes: SENDING_ROUTES },
  { service: 'activity', routes: ACTIVITY_ROUTES },
  { service: 'segments', routes: SEGMENTS_ROUTES },
  { service: 'campaigns', routes: CAMPAIGNS_ROUTES },
  { service: 'workflows', routes: WORKFLOWS_ROUTES },
];

const DESCRIPTION = `Stamp, a self-hostable email platform.

The public API (\`/v1/send\`, \`/v1/track\`, \`/v1/verify\`) answers \`{success: true, data}\`;
the dashboard routes answer the resource itself. Requests carry \`Authorization: Bearer <key>\`
(the project's secret key \`sk_…\`; the public key \`pk_…\` only on \`POST /v1/track\`), or a
member's session cookie \`stamp_session\` with \`X-Project-Id\`. Every error answers the envelope
\`{success: false, error: {code, message, statusCode, requestId, errors?, suggestion?}, timestamp}\`.`;

/** The OpenAPI document of the whole API (deterministic: the same sources give the same text). */
export function stampOpenApiDocument(): OpenApiDocument {
  return openApiDocument(STAMP_ROUTES, {
    title: 'Stamp API',
    version: '0.1.0',
    description: DESCRIPTION,
    servers: [{ url: '/', description: 'The installation serving this document' }],
  });
}

/** The document as `stamp openapi` prints it: JSON indented by two spaces, and a final newline. */
export function openApiJson(): string {
  return `${JSON.stringify(stampOpenApiDocument(), null, 2)}\n`;
}
