import type { Filter, ViewCollection, ViewDocument } from '@stamp/platform';
import { z } from 'zod';

/** Query of cursor lists (spec part 4): `limit` 1..100 (default 20), `cursor` (empty = start). */
export const cursorQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  cursor: z
    .string()
    .max(200)
    .optional()
    .transform((cursor) => (cursor === '' ? undefined : cursor)),
});

/** Query of page lists (spec part 4): `page` ≥ 1 (default 1), `pageSize` 1..100 (default 20). */
export const pageQuery = z.object({
  page: z.coerce.number().int().min(1).default(1),
  pageSize: z.coerce.number().int().min(1).max(100).default(20),
});

/**
 * A cursor-paginated list response (spec part 4). `total` is 0 after the first page. `cursor` is
 * always a string: the last item's cursor (a request with it returns what follows), or empty
 * for an empty page.
 */
export interface CursorPage<T> {
  data: T[];
  cursor: string;
  hasMore: boolean;
  total: number;
}

/**
 * Builds a cursor page from `limit + 1` fetched items: `cursorOf` gives the opaque cursor of the
 * last item returned; `total` is reported on the first page only (no cursor supplied).
 */
export function cursorPage<T>(
  fetched: T[],
  limit: number,
  cursorOf: (item: T) => string,
  firstPage: boolean,
  total: number,
): CursorPage<T> {
  const hasMore = fetched.length > limit;
  const data = hasMore ? fetched.slice(0, limit) : fetched;
  const last = data[data.length - 1];
  return {
    data,
    cursor: last === undefined ? '' : cursorOf(last),
    hasMore,
    total: firstPage ? total : 0,
  };
}

/**
 * One newest-first page of the documents of `collection` matching `filter` (spec part 4 cursor
 * lists): ids are time-ordered (UUIDv7), so the cursor is the last document's `_id` and the next
 * page holds the smaller ones; `total` is counted on the first page only.
 */
export async function findCursorPage<D extends ViewDocument, T>(
  collection: ViewCollection<D>,
  filter: Filter,
  query: { limit: number; cursor?: string | undefined },
  toItem: (document: D) => T,
): Promise<CursorPage<T>> {
  const firstPage = query.cursor === undefined;
  const pageFilter = firstPage ? filter : { ...filter, _id: { $lt: query.cursor } };
  const fetched = await collection.find(pageFilter, { sort: { _id: -1 }, limit: query.limit + 1 });
  const total = firstPage ? await collection.countDocuments(filter) : 0;
  const page = cursorPage(fetched, query.limit, (document) => document._id, firstPage, total);
  return { ...page, data: page.data.map(toItem) };
}
