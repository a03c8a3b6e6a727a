import {
  cursorParam,
  escapeRegex,
  listOrder,
  type ListOrder,
  orderSort,
  pageQuery,
  pageSizeValue,
  positionCursor,
  positionFilter,
  readPositionCursor,
  sortQuery,
} from '@stamp/http-kit';
import type { Filter, ViewStore } from '@stamp/platform';
import { z } from 'zod';

import { TEMPLATES, type TemplateDocument } from '../views.ts';
import { TEMPLATE_TYPES } from './events.ts';

/** Fields GET /templates sorts by (Plunk's published API). */
export const TEMPLATE_SORT_FIELDS = ['createdAt', 'updatedAt', 'name'] as const;

/**
 * Query of GET /templates (spec part 4 "Templates"): `limit` or `pageSize` (default 20; above 100
 * clamped to 100; `limit` wins when both are given), `cursor` (the `cursor` of the previous
 * response) or `page` ≥ 1 (default 1; `cursor` wins when both are given), `type` TRANSACTIONAL |
 * MARKETING, `search` (at most 200 characters), `sort` `createdAt` | `updatedAt` | `name` (absent
 * = creation order) and `dir` `asc` | `desc` (default `desc`). Anything else in a known parameter
 * is a 422.
 */
export const listTemplatesQuery = pageQuery.extend(sortQuery(TEMPLATE_SORT_FIELDS).shape).extend({
  limit: pageSizeValue.optional(),
  cursor: cursorParam,
  type: z.enum(TEMPLATE_TYPES).optional(),
  search: z.string().max(200).optional(),
});

/** A parsed {@link listTemplatesQuery}. */
export type ListTemplatesQuery = z.infer<typeof listTemplatesQuery>;

/**
 * One page of templates: the spec's `{templates, total, page, pageSize, totalPages}` (integers;
 * `total` counts every match, on every page), the same items under `data` (Plunk's published
 * API), and the cursor convention's `cursor` (the last item's cursor, empty for an empty page)
 * and `hasMore`.
 */
export interface TemplatePage<T> {
  data: T[];
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
 * Lists the project's templates in the asked order (newest first by default: ids are
 * time-ordered UUIDv7). With a cursor the page holds the templates after it and `page` is the
 * page number those make at this page size; without one, `page` selects the page.
 * @throws ApiError 422 for a cursor that this list and order did not produce.
 */
export async function listTemplates(
  views: ViewStore,
  projectId: string,
  query: ListTemplatesQuery,
): Promise<TemplatePage<TemplateDocument>> {
  const pageSize = query.limit ?? query.pageSize;
  const order: ListOrder = listOrder(query);
  const sort = orderSort(order);
  const filter = templatesFilter(projectId, query);
  const collection = views.collection<TemplateDocument>(TEMPLATES);
  let page = query.page;
  let fetched: TemplateDocument[];
  if (query.cursor === undefined) {
    fetched = await collection.find(filter, {
      sort,
      skip: (page - 1) * pageSize,
      limit: pageSize + 1,
    });
  } else {
    const position = readPositionCursor(order, query.cursor);
    const before = await collection.countDocuments(
      positionFilter(filter, order, position, 'through'),
    );
    page = Math.floor(before / pageSize) + 1;
    fetched = await collection.find(positionFilter(filter, order, position, 'after'), {
      sort,
      limit: pageSize + 1,
    });
  }
  const total = await collection.countDocuments(filter);
  const hasMore = fetched.length > pageSize;
  const templates = hasMore ? fetched.slice(0, pageSize) : fetched;
  const last = templates.at(-1);
  return {
    data: templates,
    templates,
    total,
    page,
    pageSize,
    totalPages: Math.ceil(total / pageSize),
    cursor: last === undefined ? '' : positionCursor(order, last),
    hasMore,
  };
}
