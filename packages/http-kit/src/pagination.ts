import type { Filter, Sort, ViewCollection, ViewDocument } from '@stamp/platform';
import { z } from 'zod';

import { type ApiError, validationError } from './errors.ts';

/** Largest page of a list (spec part 8: page size max 100). */
export const MAX_PAGE_SIZE = 100;
/** Page size when none is asked for (spec part 4). */
export const DEFAULT_PAGE_SIZE = 20;
/** Longest `cursor` query parameter accepted, characters. */
export const MAX_CURSOR_LENGTH = 4096;

/**
 * A page size (`limit`, `pageSize`) without a default: an integer ≥ 1; a value above 100 is
 * clamped to 100, as Plunk's published API does. Below 1, fractional or non-numeric: 422.
 */
export const pageSizeValue = z.coerce
  .number()
  .int()
  .min(1)
  .transform((size) => Math.min(size, MAX_PAGE_SIZE));

/** A page size parameter: {@link pageSizeValue}, 20 when absent. */
export const pageSizeParam = pageSizeValue.default(DEFAULT_PAGE_SIZE);

/** The `cursor` query parameter: the cursor of the previous page; empty or absent = the start. */
export const cursorParam = z
  .string()
  .max(MAX_CURSOR_LENGTH)
  .optional()
  .transform((cursor) => (cursor === '' ? undefined : cursor));

/** Query of cursor lists (spec part 4): `limit` (see {@link pageSizeParam}), `cursor`. */
export const cursorQuery = z.object({ limit: pageSizeParam, cursor: cursorParam });

/** Query of page lists (spec part 4): `page` ≥ 1 (default 1), `pageSize` (see {@link pageSizeParam}). */
export const pageQuery = z.object({
  page: z.coerce.number().int().min(1).default(1),
  pageSize: pageSizeParam,
});

/** 422 VALIDATION_ERROR on field `cursor` (code `invalid_cursor`): no page of the list made it. */
export function invalidCursor(): ApiError {
  return validationError([
    {
      field: 'cursor',
      message: 'Invalid cursor: pass the cursor of the previous page of the same list and order',
      code: 'invalid_cursor',
    },
  ]);
}

/** An opaque cursor: the base64url form (RFC 4648 §5) of the JSON of `value`. */
export function encodeCursor(value: unknown): string {
  return Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');
}

const BASE64URL = /^[A-Za-z0-9_-]+$/;

/**
 * The value of a cursor made by {@link encodeCursor}, checked against the shape the list
 * produces.
 * @throws ApiError 422 {@link invalidCursor} when it is not base64url, not JSON, or not of that
 *   shape.
 */
export function decodeCursor<S extends z.ZodType>(cursor: string, shape: S): z.output<S> {
  if (!BASE64URL.test(cursor)) throw invalidCursor();
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalidCursor();
  }
  const parsed = shape.safeParse(value);
  if (!parsed.success) throw invalidCursor();
  return parsed.data;
}

/** Sort directions of the `dir` query parameter. */
export const SORT_DIRECTIONS = ['asc', 'desc'] as const;

/**
 * The order of a list: a field and a direction (1 ascending, -1 descending). `_id` breaks ties
 * between equal values, in the same direction; `field: '_id'` orders by id alone (ids are UUIDv7,
 * so that is creation order).
 */
export interface ListOrder {
  field: string;
  direction: 1 | -1;
}

/** Newest first: ids are time-ordered (UUIDv7). */
export const NEWEST_FIRST: ListOrder = { field: '_id', direction: -1 };

/**
 * The `sort` and `dir` query parameters of a list whose documents can be ordered by `fields`:
 * `sort` one of them (absent = creation order), `dir` `asc` or `desc` (default `desc`). Anything
 * else is a 422 naming the parameter.
 */
export function sortQuery<const F extends string>(fields: readonly [F, ...F[]]) {
  return z.object({
    sort: z.enum(fields).optional(),
    dir: z.enum(SORT_DIRECTIONS).default('desc'),
  });
}

/**
 * The order a parsed {@link sortQuery} asks for: `sort` (or `fallback` when absent, `_id` by
 * default) in direction `dir`.
 */
export function listOrder(
  query: { sort?: string | undefined; dir: 'asc' | 'desc' },
  fallback = '_id',
): ListOrder {
  return { field: query.sort ?? fallback, direction: query.dir === 'asc' ? 1 : -1 };
}

/** The view sort of an order: the field, then `_id`, both in its direction. */
export function orderSort(order: ListOrder): Sort {
  return order.field === '_id'
    ? { _id: order.direction }
    : { [order.field]: order.direction, _id: order.direction };
}

/** Where a document stands in an order: its sort value (absent when ordered by id) and its id. */
export interface CursorPosition {
  value?: string | number | boolean | null;
  id: string;
}

const cursorValue = z.union([z.string(), z.number(), z.boolean(), z.null()]);

/** The cursor of `document` in `order`: it names the order, so another order refuses it. */
export function positionCursor(order: ListOrder, document: ViewDocument): string {
  if (order.field === '_id') return encodeCursor({ o: '_id', d: order.direction, i: document._id });
  const value = document[order.field];
  return encodeCursor({
    o: order.field,
    d: order.direction,
    v: cursorValue.safeParse(value).success ? value : null,
    i: document._id,
  });
}

/**
 * The position a cursor made by {@link positionCursor} for the same order designates.
 * @throws ApiError 422 {@link invalidCursor} otherwise.
 */
export function readPositionCursor(order: ListOrder, cursor: string): CursorPosition {
  const id = z.string().min(1).max(200);
  if (order.field === '_id') {
    const decoded = decodeCursor(
      cursor,
      z.strictObject({ o: z.literal('_id'), d: z.literal(order.direction), i: id }),
    );
    return { id: decoded.i };
  }
  const decoded = decodeCursor(
    cursor,
    z.strictObject({
      o: z.literal(order.field),
      d: z.literal(order.direction),
      v: cursorValue,
      i: id,
    }),
  );
  return { value: decoded.v, id: decoded.i };
}

/**
 * `filter` narrowed to the documents after `position` in `order` (`'after'`), or to those up to
 * and including it (`'through'`), as `{f: {$lt: v}} or {f: v, _id: {$lt: id}}` (descending;
 * `$gt` ascending).
 */
export function positionFilter(
  filter: Filter,
  order: ListOrder,
  position: CursorPosition,
  side: 'after' | 'through',
): Filter {
  const forward = order.direction === 1;
  const beyond = side === 'after' ? (forward ? '$gt' : '$lt') : forward ? '$lt' : '$gt';
  const idBound =
    side === 'after' ? { [beyond]: position.id } : { [forward ? '$lte' : '$gte']: position.id };
  if (order.field === '_id') {
    return Object.hasOwn(filter, '_id')
      ? { $and: [filter, { _id: idBound }] }
      : { ...filter, _id: idBound };
  }
  const condition: Filter = {
    $or: [
      { [order.field]: { [beyond]: position.value } },
      { [order.field]: position.value, _id: idBound },
    ],
  };
  return Object.hasOwn(filter, '$or') ? { $and: [filter, condition] } : { ...filter, ...condition };
}

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
 * One page of the documents of `collection` matching `filter` in `order` (newest first by
 * default: ids are time-ordered UUIDv7), a spec part 4 cursor list. The cursor encodes the last
 * document's sort value and id ({@link positionCursor}); the next page holds the documents after
 * it. `total` is counted on the first page only.
 * @throws ApiError 422 {@link invalidCursor} for a cursor this list and order did not produce.
 */
export async function findCursorPage<D extends ViewDocument, T>(
  collection: ViewCollection<D>,
  filter: Filter,
  query: { limit: number; cursor?: string | undefined },
  toItem: (document: D) => T,
  order: ListOrder = NEWEST_FIRST,
): Promise<CursorPage<T>> {
  const firstPage = query.cursor === undefined;
  const pageFilter =
    query.cursor === undefined
      ? filter
      : positionFilter(filter, order, readPositionCursor(order, query.cursor), 'after');
  const fetched = await collection.find(pageFilter, {
    sort: orderSort(order),
    limit: query.limit + 1,
  });
  const total = firstPage ? await collection.countDocuments(filter) : 0;
  const page = cursorPage(
    fetched,
    query.limit,
    (document) => positionCursor(order, document),
    firstPage,
    total,
  );
  return { ...page, data: page.data.map(toItem) };
}
