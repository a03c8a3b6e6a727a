/**
 * The domains service's routes in the OpenAPI document (spec part 4, "Domains, activity,
 * analytics, uploads"; API reference, "Domains").
 */
import { deletedSchema, isoTimestamp, type RouteDoc } from '@stamp/http-kit';
import { z } from 'zod';

import { addDomainBody } from './domains/api.ts';

const status = z.enum(['PENDING', 'VERIFIED', 'FAILED']);

/** A sender domain with the DNS records to publish (never its private key). */
const domainSchema = z
  .object({
    id: z.string(),
    domain: z.string(),
    status,
    verified: z.boolean(),
    records: z.array(
      z.object({
        type: z.enum(['TXT', 'MX']),
        name: z.string(),
        value: z.string(),
        priority: z.int().optional().describe('MX records only'),
        purpose: z.enum(['DKIM', 'SPF', 'RETURN_PATH', 'DMARC', 'INBOUND']),
        status,
      }),
    ),
    createdAt: isoTimestamp,
    verifiedAt: isoTimestamp.optional(),
  })
  .meta({ id: 'Domain' });

/** Routes of the domains service. */
export const DOMAINS_ROUTES: readonly RouteDoc[] = [
  {
    method: 'post',
    path: '/domains',
    summary: 'Add a sender domain; answers the DNS records to publish',
    auth: 'secret',
    body: addDomainBody,
    responses: {
      201: { description: 'The domain, PENDING', schema: domainSchema },
      409: { description: 'The project already has this domain' },
    },
  },
  {
    method: 'get',
    path: '/domains/project/{projectId}',
    summary: "The project's domains, oldest first",
    auth: 'secret',
    responses: {
      200: { description: 'The domains', schema: z.array(domainSchema) },
      403: { description: 'PROJECT_ACCESS_DENIED: another project' },
    },
  },
  {
    method: 'get',
    path: '/domains/{id}/verify',
    summary: "Check the domain's DNS records now",
    auth: 'secret',
    responses: {
      200: { description: 'The domain after the check', schema: domainSchema },
      404: { description: 'DOMAIN_NOT_FOUND' },
    },
  },
  {
    method: 'delete',
    path: '/domains/{id}',
    summary: 'Remove a domain',
    auth: 'secret',
    responses: {
      200: {
        description: 'Removed',
        schema: deletedSchema,
      },
      404: { description: 'DOMAIN_NOT_FOUND' },
    },
  },
];
