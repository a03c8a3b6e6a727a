/**
 * Routes of sender domains (spec part 4 "Domains, activity, analytics, uploads"; API reference
 * "Domains"): POST /domains, GET /domains/project/:projectId, GET /domains/:id/verify,
 * DELETE /domains/:id. The private key is never part of a response.
 */
import type { AwaitViews } from '@stamp/contracts';
import { caller, forbidden, parse } from '@stamp/http-kit';
import type { ViewStore } from '@stamp/platform';
import { Router } from 'express';
import { z } from 'zod';

import type { DomainCommands } from './commands.ts';
import { normalizeDomain } from './decide.ts';
import { LIVE, domainsView, toResource } from './views.ts';

/** Dependencies of {@link domainsRouter}. */
export interface DomainsRouterDeps {
  commands: DomainCommands;
  views: ViewStore;
  awaitViews: AwaitViews;
}

/** Body of POST /domains: `{domain}`, a hostname (lowercased; one trailing dot dropped). */
export const addDomainBody = z.object({
  domain: z
    .string()
    .max(300)
    .transform((value, ctx) => {
      const domain = normalizeDomain(value);
      if (domain === null) {
        ctx.addIssue({ code: 'custom', message: 'Must be a valid domain name, e.g. example.com' });
        return z.NEVER;
      }
      return domain;
    }),
});

/**
 * The domains router.
 * - POST /domains → 201 domain resource with the DNS records to add; 409 CONFLICT when the
 *   project has the domain; 422 VALIDATION_ERROR for a bad name.
 * - GET /domains/project/:projectId → 200 array of the project's domains (oldest first);
 *   403 PROJECT_ACCESS_DENIED for another project.
 * - GET /domains/:id/verify → 200 domain resource after a DNS check; 404 DOMAIN_NOT_FOUND.
 * - DELETE /domains/:id → 200 `{success: true, id}`; 404 DOMAIN_NOT_FOUND.
 */
export function domainsRouter(deps: DomainsRouterDeps): Router {
  const router = Router();
  const collection = domainsView(deps.views);

  router.post('/domains', async (req, res) => {
    const { projectId, requestId } = caller(res);
    const { domain } = parse(addDomainBody, req.body ?? {});
    const result = await deps.commands.add(projectId, domain, requestId);
    await deps.awaitViews(result.position);
    res.status(201).json(toResource(result.state));
  });

  router.get('/domains/project/:projectId', async (req, res) => {
    const { projectId } = caller(res);
    if (req.params.projectId !== projectId) {
      throw forbidden('You do not have access to this project', 'PROJECT_ACCESS_DENIED');
    }
    const found = await collection.find({ projectId, ...LIVE }, { sort: { createdAt: 1, _id: 1 } });
    res.json(found.map(toResource));
  });

  router.get('/domains/:id/verify', async (req, res) => {
    const { projectId, requestId } = caller(res);
    const result = await deps.commands.verify(projectId, req.params.id, requestId, true);
    await deps.awaitViews(result.position);
    res.json(toResource(result.state));
  });

  router.delete('/domains/:id', async (req, res) => {
    const { projectId, requestId } = caller(res);
    const result = await deps.commands.remove(projectId, req.params.id, requestId);
    await deps.awaitViews(result.position);
    res.json({ success: true, id: req.params.id });
  });

  return router;
}
