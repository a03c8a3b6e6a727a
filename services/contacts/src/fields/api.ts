/**
 * Contact field routes (spec part 4, "Contacts"; secret key): GET /contacts/fields,
 * GET /contacts/fields/:field/values, GET /contacts/fields/:field/usage and
 * DELETE /contacts/fields/:field. Standard fields are those of the contact resource (part 2);
 * custom fields are the keys of contact data.
 */
import {
  type AwaitViews,
  CAMPAIGNS_VIEW,
  type CampaignViewDocument,
  filterReferences,
  SEGMENTS_VIEW,
  type SegmentViewDocument,
  WORKFLOWS_VIEW,
  type WorkflowViewDocument,
} from '@stamp/contracts';
import {
  ApiError,
  caller,
  cursorPage,
  cursorQuery,
  decodeCursor,
  encodeCursor,
  notFound,
  parse,
  validationError,
} from '@stamp/http-kit';
import type { ViewStore } from '@stamp/platform';
import { type Request, type Response, Router } from 'express';
import { z } from 'zod';

import type { ContactCommands } from '../contacts/commands.ts';
import { contactsView } from '../contacts/projection.ts';
import { FIELD_TYPES, type FieldType } from './infer.ts';
import { contactFieldId, contactFieldsView } from './projection.ts';

/** Dependencies of {@link fieldsRouter}. */
export interface FieldsRouterDeps {
  commands: ContactCommands;
  views: ViewStore;
  awaitViews: AwaitViews;
}

/** A field as GET /contacts/fields lists it. */
export interface FieldSummary {
  /** Standard field name, or the data key of a custom field. */
  name: string;
  /** Path of the field in filters (API reference, "Filter language"): `email`, `data.plan`. */
  path: string;
  standard: boolean;
  /** The most frequent inferred type of its values. */
  type: FieldType;
  /** Contacts holding it, by inferred type (custom fields). */
  types?: Partial<Record<FieldType, number>>;
  /** Contacts holding it. */
  count: number;
  /** Share of the project's contacts holding it, percent with two decimals. */
  coverage: number;
}

const STANDARD_FIELDS: readonly { name: string; type: FieldType }[] = [
  { name: 'email', type: 'string' },
  { name: 'subscribed', type: 'boolean' },
  { name: 'createdAt', type: 'date' },
  { name: 'updatedAt', type: 'date' },
];

/** Concurrent contact updates of DELETE /contacts/fields/:field. */
const DELETE_CONCURRENCY = 64;

const percent = (count: number, total: number): number =>
  total === 0 ? 0 : Math.round((count / total) * 10_000) / 100;

/**
 * The data key named by the `:field` path parameter.
 * @throws ApiError 422 for a key that cannot be addressed as a field path (`.` or a leading `$`).
 */
function fieldParam(req: Request): string {
  const field = String(req.params.field);
  if (field === '' || field.includes('.') || field.startsWith('$') || field.length > 255) {
    throw validationError([
      {
        field: 'field',
        message: 'A field name is 1 to 255 characters, without "." and not starting with "$"',
        code: 'invalid_field',
      },
    ]);
  }
  return field;
}

/** Shape of a values cursor: the last value of the previous page (a contact data value). */
const fieldValueCursor = z.union([z.string(), z.number(), z.boolean()]);

/** Total order of distinct values: numbers, then strings, then booleans. */
function compareValues(a: unknown, b: unknown): number {
  const rank = (value: unknown): number =>
    typeof value === 'number' ? 0 : typeof value === 'string' ? 1 : 2;
  const order = rank(a) - rank(b);
  if (order !== 0) return order;
  return String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0;
}

/** The fields router. */
export function fieldsRouter(deps: FieldsRouterDeps): Router {
  const router = Router();
  const fields = contactFieldsView(deps.views);
  const contacts = contactsView(deps.views);

  /** The custom field `field` of the project, or 404 RESOURCE_NOT_FOUND. */
  async function readField(projectId: string, field: string): Promise<void> {
    const view = await fields.findOne({ _id: contactFieldId(projectId, field) });
    if (view === null || view.count <= 0) {
      throw notFound('RESOURCE_NOT_FOUND', `No contact has the field "${field}"`);
    }
  }

  /**
   * GET /contacts/fields: `{total, fields: FieldSummary[]}`, `total` = contacts of the project;
   * standard fields first, then custom fields by descending count.
   */
  router.get('/contacts/fields', async (_req: Request, res: Response) => {
    const { projectId } = caller(res);
    const total = await contacts.countDocuments({ projectId });
    const standard: FieldSummary[] = STANDARD_FIELDS.map(({ name, type }) => ({
      name,
      path: name,
      standard: true,
      type,
      count: total,
      coverage: total === 0 ? 0 : 100,
    }));
    const custom = (await fields.find({ projectId }))
      .filter((view) => view.count > 0)
      .map((view): FieldSummary => {
        let type: FieldType = 'string';
        for (const candidate of FIELD_TYPES) {
          if ((view.types[candidate] ?? 0) > (view.types[type] ?? 0)) type = candidate;
        }
        const types = Object.fromEntries(
          Object.entries(view.types).filter(([, count]) => count > 0),
        );
        return {
          name: view.field,
          path: `data.${view.field}`,
          standard: false,
          type,
          types,
          count: view.count,
          coverage: percent(view.count, total),
        };
      })
      .sort((a, b) => b.count - a.count || (a.name < b.name ? -1 : 1));
    res.json({ total, fields: [...standard, ...custom] });
  });

  /**
   * GET /contacts/fields/:field/values: the distinct values of a custom field, a cursor list
   * (spec part 4 conventions) ordered numbers, strings, booleans; the cursor is opaque.
   */
  router.get('/contacts/fields/:field/values', async (req: Request, res: Response) => {
    const { projectId } = caller(res);
    const field = fieldParam(req);
    const query = parse(cursorQuery, req.query);
    await readField(projectId, field);
    const after =
      query.cursor === undefined ? undefined : decodeCursor(query.cursor, fieldValueCursor);
    // Only the values of contacts whose own data holds the key, and only data values.
    const values = (
      await contacts.distinct(`data.${field}`, { projectId, [`data.${field}`]: { $exists: true } })
    )
      .filter((value) => fieldValueCursor.safeParse(value).success)
      .sort(compareValues);
    const start =
      query.cursor === undefined ? 0 : values.findIndex((value) => compareValues(value, after) > 0);
    const rest = start === -1 ? [] : values.slice(start, start + query.limit + 1);
    res.json(
      cursorPage(
        rest,
        query.limit,
        (value) => encodeCursor(value),
        query.cursor === undefined,
        values.length,
      ),
    );
  });

  /**
   * GET /contacts/fields/:field/usage: `{segments, campaigns, workflows}` (each `[{id, name}]`)
   * whose filters or steps reference the field (`data.<field>`, or the standard field's name).
   */
  router.get('/contacts/fields/:field/usage', async (req: Request, res: Response) => {
    const { projectId } = caller(res);
    const field = fieldParam(req);
    const standard = STANDARD_FIELDS.some(({ name }) => name === field);
    const paths = new Set(standard ? [field, `contact.${field}`] : [`data.${field}`]);
    const matches = (path: string): boolean => paths.has(path);
    const segments = await deps.views
      .collection<SegmentViewDocument>(SEGMENTS_VIEW)
      .find({ projectId });
    const campaigns = await deps.views
      .collection<CampaignViewDocument>(CAMPAIGNS_VIEW)
      .find({ projectId });
    const workflows = await deps.views
      .collection<WorkflowViewDocument>(WORKFLOWS_VIEW)
      .find({ projectId });
    const summary = (document: { _id: string; name: string }): { id: string; name: string } => ({
      id: document._id,
      name: document.name,
    });
    res.json({
      segments: segments
        .filter((segment) => filterReferences(segment.condition, matches))
        .map(summary),
      campaigns: campaigns
        .filter((campaign) => filterReferences(campaign.audienceFilter, matches))
        .map(summary),
      workflows: workflows
        .filter((workflow) =>
          workflow.steps.some(
            (step) =>
              filterReferences(step.config, matches) ||
              (step.type === 'UPDATE_CONTACT' &&
                !standard &&
                typeof step.config.updates === 'object' &&
                step.config.updates !== null &&
                Object.hasOwn(step.config.updates, field)),
          ),
        )
        .map(summary),
    });
  });

  /**
   * DELETE /contacts/fields/:field: removes the key from every contact of the project that
   * holds it, as ContactDataChanged events (one per contact, 64 at a time); answers
   * `{success: true, field, affected}` once the views reflect it.
   * @throws ApiError 404 RESOURCE_NOT_FOUND when no contact holds it; 422 for a standard field.
   */
  router.delete('/contacts/fields/:field', async (req: Request, res: Response) => {
    const who = caller(res);
    const field = fieldParam(req);
    if (STANDARD_FIELDS.some(({ name }) => name === field)) {
      throw validationError([
        { field: 'field', message: 'Standard fields cannot be deleted', code: 'standard_field' },
      ]);
    }
    await readField(who.projectId, field);
    const ids = (await contacts.distinct('_id', {
      projectId: who.projectId,
      [`data.${field}`]: { $exists: true },
    })) as string[];
    let position = 0;
    let affected = 0;
    for (let start = 0; start < ids.length; start += DELETE_CONCURRENCY) {
      const results = await Promise.allSettled(
        ids
          .slice(start, start + DELETE_CONCURRENCY)
          .map((id) =>
            deps.commands.updateContact(
              who.projectId,
              id,
              { data: { [field]: null } },
              who.requestId,
            ),
          ),
      );
      for (const result of results) {
        if (result.status === 'fulfilled') {
          // Position 0: nothing changed, the contact did not hold the key (any more).
          if (result.value.position > 0) affected += 1;
          position = Math.max(position, result.value.position);
        } else if (!(result.reason instanceof ApiError && result.reason.status === 404)) {
          // A contact deleted meanwhile has nothing left to remove; anything else is a failure.
          throw result.reason;
        }
      }
    }
    await deps.awaitViews(position);
    res.json({ success: true, field, affected });
  });

  return router;
}
