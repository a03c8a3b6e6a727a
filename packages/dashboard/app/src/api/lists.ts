/**
 * Cursor lists of the API (`{data, cursor, hasMore, total}`, spec part 4 "Pagination") as
 * TanStack Query infinite queries: the first page at once, the next ones on demand.
 */
import { type QueryKey, useInfiniteQuery } from '@tanstack/react-query';

/** One page of a cursor list. */
export interface CursorPage<Item> {
  data: Item[];
  cursor?: string | null;
  hasMore: boolean;
  total?: number;
}

/**
 * The pages of a cursor list under `key` (include the project id and the filters in it);
 * `fetchPage(cursor)` fetches one (no cursor: the first). `items` is every item loaded so far.
 */
export function useCursorList<Item>(
  key: QueryKey,
  fetchPage: (cursor: string | undefined) => Promise<CursorPage<Item>>,
) {
  const query = useInfiniteQuery({
    queryKey: key,
    queryFn: ({ pageParam }) => fetchPage(pageParam),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) =>
      last.hasMore && typeof last.cursor === 'string' ? last.cursor : undefined,
  });
  const items = query.data?.pages.flatMap((page) => page.data) ?? [];
  const total = query.data?.pages[0]?.total;
  return { ...query, items, total };
}
