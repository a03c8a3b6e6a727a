import type { AwaitViews } from '@stamp/contracts';
import { caller, emailAddress, notFound, parse } from '@stamp/http-kit';
import type { ViewStore } from '@stamp/platform';
import { Router } from 'express';
import { z } from 'zod';

import { headerText } from '../send/header-text.ts';
import { TEMPLATES, type TemplateDocument } from '../views.ts';
import {
  createTemplate,
  deleteTemplate,
  duplicateTemplate,
  MAX_TEMPLATE_NAME,
  type TemplateCommandDeps,
  updateTemplate,
} from './commands.ts';
import { TEMPLATE_TYPES, type TemplateFields, type TemplatePatch } from './events.ts';
import { listTemplates, listTemplatesQuery } from './list.ts';
import { templateUsage } from './usage.ts';

/**
 * Largest template body, UTF-8 bytes (5 MiB). A template is stored whole in one event and one
 * view document (MongoDB holds at most 16 MiB per document), so it is capped well below the
 * 40 MB a message sent with an inline body may reach.
 */
export const MAX_TEMPLATE_BODY_BYTES = 5 * 1024 * 1024;

const subject = headerText('Subject', { min: 1, max: 998 });
const templateBody = z
  .string()
  .min(1)
  .refine((body) => Buffer.byteLength(body, 'utf8') <= MAX_TEMPLATE_BODY_BYTES, {
    message: `A template body may have at most ${MAX_TEMPLATE_BODY_BYTES} bytes (5 MiB)`,
    params: { code: 'too_big' },
  });
const templateType = z.enum(TEMPLATE_TYPES);
const templateName = z.string().trim().min(1).max(MAX_TEMPLATE_NAME);
const displayName = headerText('Name', { max: 255 });

/** Body of POST /templates. */
export const createBody = z.object({
  name: templateName,
  subject,
  body: templateBody,
  // Plunk's published default: a template created without a type is MARKETING.
  type: templateType.default('MARKETING'),
  from: emailAddress.optional(),
  fromName: displayName.optional(),
  replyTo: emailAddress.optional(),
});

/** Body of PATCH /templates/:id. */
export const patchBody = z.object({
  name: templateName.optional(),
  subject: subject.optional(),
  body: templateBody.optional(),
  type: templateType.optional(),
  from: emailAddress.nullable().optional(),
  fromName: displayName.nullable().optional(),
  replyTo: emailAddress.nullable().optional(),
});

/** A template as the API returns it (spec part 2 "Template"). */
export interface TemplateResource {
  id: string;
  name: string;
  subject: string;
  body: string;
  type: string;
  from: string | null;
  fromName: string | null;
  replyTo: string | null;
  createdAt: string;
  updatedAt: string;
}

/** Maps a view document to the API shape. */
export function toTemplateResource(document: TemplateDocument): TemplateResource {
  return {
    id: document._id,
    name: document.name,
    subject: document.subject,
    body: document.body,
    type: document.type,
    from: document.from ?? null,
    fromName: document.fromName ?? null,
    replyTo: document.replyTo ?? null,
    createdAt: document.createdAt,
    updatedAt: document.updatedAt,
  };
}

/**
 * Reads a live template of the project from the view.
 * @throws ApiError 404 TEMPLATE_NOT_FOUND.
 */
export async function findTemplate(
  views: ViewStore,
  projectId: string,
  id: string,
): Promise<TemplateDocument> {
  const document = await views
    .collection<TemplateDocument>(TEMPLATES)
    .findOne({ _id: id, projectId, deleted: false });
  if (document === null) throw notFound('TEMPLATE_NOT_FOUND', `Template ${id} not found`);
  return document;
}

/** Dependencies of the template routes. */
export interface TemplatesRouterDeps extends TemplateCommandDeps {
  views: ViewStore;
  awaitViews: AwaitViews;
}

/**
 * Template routes (spec part 4 "Templates"): POST/GET /templates, GET/PATCH/DELETE
 * /templates/:id, POST /templates/:id/duplicate, GET /templates/:id/usage. A write answers once
 * the view reflects it. Errors: 404 TEMPLATE_NOT_FOUND, 403 DOMAIN_NOT_VERIFIED (a from that is
 * not on a verified domain of the project), 422 VALIDATION_ERROR (bad fields or query, Liquid
 * syntax errors naming the line).
 */
export function templatesRouter(deps: TemplatesRouterDeps): Router {
  const router = Router();

  router.post('/templates', async (req, res) => {
    const who = caller(res);
    const fields: TemplateFields = parse(createBody, req.body);
    const { id, position } = await createTemplate(deps, who, fields);
    await deps.awaitViews(position);
    res.status(201).json(toTemplateResource(await findTemplate(deps.views, who.projectId, id)));
  });

  router.get('/templates', async (req, res) => {
    const { projectId } = caller(res);
    const page = await listTemplates(deps.views, projectId, parse(listTemplatesQuery, req.query));
    const templates = page.templates.map(toTemplateResource);
    res.json({ ...page, data: templates, templates });
  });

  router.get('/templates/:id', async (req, res) => {
    const { projectId } = caller(res);
    res.json(toTemplateResource(await findTemplate(deps.views, projectId, req.params.id)));
  });

  router.patch('/templates/:id', async (req, res) => {
    const who = caller(res);
    const patch: TemplatePatch = parse(patchBody, req.body ?? {});
    const { position } = await updateTemplate(deps, who, req.params.id, patch);
    await deps.awaitViews(position);
    res.json(toTemplateResource(await findTemplate(deps.views, who.projectId, req.params.id)));
  });

  router.delete('/templates/:id', async (req, res) => {
    const who = caller(res);
    const { position } = await deleteTemplate(deps, who, req.params.id);
    await deps.awaitViews(position);
    res.json({ success: true, id: req.params.id });
  });

  router.post('/templates/:id/duplicate', async (req, res) => {
    const who = caller(res);
    const { id, position } = await duplicateTemplate(deps, who, req.params.id);
    await deps.awaitViews(position);
    res.status(201).json(toTemplateResource(await findTemplate(deps.views, who.projectId, id)));
  });

  router.get('/templates/:id/usage', async (req, res) => {
    const { projectId } = caller(res);
    const template = await findTemplate(deps.views, projectId, req.params.id);
    res.json(await templateUsage(deps.views, projectId, template._id));
  });

  return router;
}
