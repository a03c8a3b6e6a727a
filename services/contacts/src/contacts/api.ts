/**
 * Contact routes (spec part 4, "Contacts"; secret key, mounted by the gateway behind auth):
 * POST /contacts, GET /contacts, GET /contacts/:id, PATCH /contacts/:id, DELETE /contacts/:id.
 */
import type { AwaitViews } from '@stamp/contracts';
import {
  addressProblem,
  caller,
  cursorQuery,
  escapeRegex,
  type FieldError,
  findCursorPage,
  listOrder,
  notFound,
  parse,
  sortQuery,
  validationError,
} from '@stamp/http-kit';
import type { Filter, ViewStore } from '@stamp/platform';
import { type Request, type Response, Router } from 'express';
import { z } from 'zod';

import type { ContactCommands } from './commands.ts';
import { dataSchema } from './data.ts';
import { normaliseEmail } from './email.ts';
import { type ContactView, contactsView } from './projection.ts';

/** Dependencies of {@link contactsRouter}. */
export interface ContactsRouterDeps {
  commands: ContactCommands;
  views: ViewStore;
  awaitViews: AwaitViews;
}

/** A contact as the API answers it (spec part 2). */
export interface ContactResponse {
  id: string;
  email: string;
  subscribed: boolean;
  data: Record<string, string | number | boolean>;
  createdAt: string;
  updatedAt: string;
}

/** Body of POST /contacts. */
export const createBody = z.object({
  email: z.string(),
  subscribed: z.boolean().optional(),
  data: dataSchema.optional(),
});

/** Body of PATCH /contacts/:id. */
export const updateBody = z.object({
  email: z.string().optional(),
  subscribed: z.boolean().optional(),
  data: dataSchema.optional(),
});

/** Most emails of one POST /contacts/lookup (spec part 8). */
export const MAX_LOOKUP_EMAILS = 500;

/** Body of POST /contacts/lookup. */
export const lookupBody = z.object({
  emails: z.array(z.string().max(1000)).min(1).max(MAX_LOOKUP_EMAILS),
});

/** Fields GET /contacts sorts by (Plunk's `email` and `createdAt`, and `updatedAt`). */
export const CONTACT_SORT_FIELDS = ['createdAt', 'updatedAt', 'email'] as const;

/**
 * Query of GET /contacts: `limit`, `cursor`, `search` (case-insensitive substring of the email),
 * `subscribed` (`true` or `false`), `sort` (one of {@link CONTACT_SORT_FIELDS}; absent = creation
 * order) and `dir` (`asc` | `desc`, default `desc`). Any other value of these is a 422.
 */
export const listQuery = cursorQuery.extend(sortQuery(CONTACT_SORT_FIELDS).shape).extend({
  search: z.string().max(254).optional(),
  subscribed: z
    .enum(['true', 'false'], { message: 'Expected true or false' })
    .transform((value) => value === 'true')
    .optional(),
});

/** The API form of a contacts view document. */
export function toContact(view: ContactView): ContactResponse {
  return {
    id: view._id,
    email: view.email,
    subscribed: view.subscribed,
    data: view.data,
    createdAt: view.createdAt,
    updatedAt: view.updatedAt,
  };
}

const idOf = (req: Request): string => String(req.params.id);

/**
 * The contacts router. Every write waits for the views to reflect it (read-your-writes) before
 * answering. DELETE answers 204 without a body (as Plunk's published API).
 */
export function contactsRouter(deps: ContactsRouterDeps): Router {
  const router = Router();
  const contacts = contactsView(deps.views);

  async function read(projectId: string, id: string): Promise<ContactView> {
    const view = await contacts.findOne({ _id: id, projectId });
    if (view === null) throw notFound('CONTACT_NOT_FOUND', 'Contact not found');
    return view;
  }

  router.post('/contacts', async (req: Request, res: Response) => {
    const who = caller(res);
    const body = parse(createBody, req.body);
    const result = await deps.commands.upsertRecipient({
      projectId: who.projectId,
      email: body.email,
      subscribed: body.subscribed,
      defaultSubscribed: true,
      data: body.data,
      correlationId: who.requestId,
    });
    await deps.awaitViews(result.position);
    const view = await contacts.findOne({ _id: result.contactId, projectId: who.projectId });
    const now = new Date().toISOString();
    const contact: ContactResponse =
      view === null
        ? {
            id: result.contactId,
            email: result.email,
            subscribed: result.subscribed,
            data: result.data,
            createdAt: now,
            updatedAt: now,
          }
        : toContact(view);
    res
      .status(result.isNew ? 201 : 200)
      .json({ ...contact, _meta: { isNew: result.isNew, isUpdate: !result.isNew } });
  });

  /**
   * GET /contacts: a cursor list (spec part 4) of the project's contacts matching `search` and
   * `subscribed`, in the asked order (newest first by default). The cursor encodes the last
   * contact's sort value and id, so pages stay exact under any order.
   */
  router.get('/contacts', async (req: Request, res: Response) => {
    const { projectId } = caller(res);
    const query = parse(listQuery, req.query);
    const filter: Filter = { projectId };
    const search = query.search?.trim().toLowerCase();
    if (search !== undefined && search !== '') {
      filter.email = { $regex: escapeRegex(search), $options: 'i' };
    }
    if (query.subscribed !== undefined) filter.subscribed = query.subscribed;
    res.json(await findCursorPage(contacts, filter, query, toContact, listOrder(query)));
  });

  /**
   * POST /contacts/lookup `{emails: string[1..500]}` → `{data: [{email, exists, id}], found}`
   * in request order; `email` is the normalised address (as given when it is not a valid one,
   * which never exists). More than 500 emails, or an address beyond the RFC 5321 size limits
   * (field `emails.<index>`): 422.
   */
  router.post('/contacts/lookup', async (req: Request, res: Response) => {
    const { projectId } = caller(res);
    const { emails } = parse(lookupBody, req.body);
    const oversized: FieldError[] = [];
    for (const [index, given] of emails.entries()) {
      const problem = addressProblem(given.trim().toLowerCase());
      if (problem?.code === 'too_big') {
        oversized.push({ field: `emails.${index}`, message: problem.message, code: problem.code });
      }
    }
    if (oversized.length > 0) throw validationError(oversized);
    const data: { email: string; exists: boolean; id: string | null }[] = [];
    for (const given of emails) {
      let email: string;
      try {
        email = normaliseEmail(given);
      } catch {
        data.push({ email: given, exists: false, id: null });
        continue;
      }
      const view = await contacts.findOne({ projectId, email });
      data.push({ email, exists: view !== null, id: view?._id ?? null });
    }
    res.json({ data, found: data.filter((item) => item.exists).length });
  });

  router.get('/contacts/:id', async (req: Request, res: Response) => {
    const { projectId } = caller(res);
    res.json(toContact(await read(projectId, idOf(req))));
  });

  router.patch('/contacts/:id', async (req: Request, res: Response) => {
    const who = caller(res);
    const body = parse(updateBody, req.body);
    const result = await deps.commands.updateContact(who.projectId, idOf(req), body, who.requestId);
    await deps.awaitViews(result.position);
    res.json(toContact(await read(who.projectId, result.contactId)));
  });

  router.delete('/contacts/:id', async (req: Request, res: Response) => {
    const who = caller(res);
    const result = await deps.commands.deleteContact(who.projectId, idOf(req), who.requestId);
    await deps.awaitViews(result.position);
    res.status(204).end();
  });

  return router;
}
