import { cursorQuery, escapeRegex, pageQuery } from '@stamp/http-kit';
import type { Filter, ViewStore } from '@stamp/platform';
import { z } from 'zod';

import { TEMPLATES, type TemplateDocument } from '../views.ts';
import { TEMPLATE_TYPES } from './events.ts';

/**
 * Query of GET /templates (spec part 4 "Templates"): `limit` 1..100 or `pageSize` 1..100 (default
 * 20; `limit` wins when both are given), `cursor` (the `cursor` of the previous response) or
 * `page` ≥ 1 (default 1; `cursor` wins when both are given), `type` TRANSACTIONAL | MARKETING,
 * `search` (at most 200 characters). Anything else in a known parameter is a 422.
 */
export const listTemplatesQuery = pageQuery.extend({
  limit: z.coerce.number().int().min(1).max(100).optional(),
  cursor: cursorQuery.shape.cursor,
  type: z.enum(TEMPLATE_TYPES).optional(),
  search: z.string().max(200).optional(),
});

/** A parsed {@link listTemplatesQuery}. */
export type ListTemplatesQuery = z.infer<typeof listTemplatesQuery>;

/**
 * One page of templates: the spec's `{total, page, pageSize, totalPages}` (integers; `total`
 * counts every match, on every page) plus the cursor convention's `cursor` (the last item's id,
 * empty for an empty page) and `hasMore`.
 */
export interface TemplatePage<T> {
  templates: T[];
  total: number;
  page: number;
  pageSize: number;
  totalPages: number;
  cursor: string;
  hasMore: boolean;
}

/**
 * The view filter of a list: live templates of the project, of `type` when given, whose name or
 * subject contains `search` (case-insensitive, taken literally) when it is not empty.
 */
export function templatesFilter(
  projectId: string,
  query: Pick<ListTemplatesQuery, 'type' | 'search'>,
): Filter {
  const filter: Filter = { projectId, deleted: false };
  if (query.type !== undefined) filter.type = query.type;
  if (query.search !== undefined && query.search !== '') {
    const pattern = { $regex: escapeRegex(query.search), $options: 'i' };
    filter.$or = [{ name: pattern }, { subject: pattern }];
  }
  return filter;
}

/**
 * Lists the project's templates newest first (ids are time-ordered UUIDv7). With a cursor the
 * page holds the templates after it and `page` is the page number those make at this page size;
 * without one, `page` selects the page.
 */
export async function listTemplates(
  views: ViewStore,
  projectId: string,
  query: ListTemplatesQuery,
): Promise<TemplatePage<TemplateDocument>> {
  const pageSize = query.limit ?? query.pageSize;
  const filter = templatesFilter(projectId, query);
  const collection = views.collection<TemplateDocument>(TEMPLATES);
  const total = await collection.countDocuments(filter);
  let page = query.page;
  let fetched: TemplateDocument[];
  if (query.cursor === undefined) {
    fetched = await collection.find(filter, {
      sort: { _id: -1 },
      skip: (page - 1) * pageSize,
      limit: pageSize + 1,
    });
  } else {
    const before = await collection.countDocuments({ ...filter, _id: { $gte: query.cursor } });
    page = Math.floor(before / pageSize) + 1;
    fetched = await collection.find(
      { ...filter, _id: { $lt: query.cursor } },
      { sort: { _id: -1 }, limit: pageSize + 1 },
    );
  }
  const hasMore = fetched.length > pageSize;
  const templates = hasMore ? fetched.slice(0, pageSize) : fetched;
  return {
    templates,
    total,
    page,
    pageSize,
    totalPages: Math.ceil(total / pageSize),
    cursor: templates.at(-1)?._id ?? '',
    hasMore,
  };
}
