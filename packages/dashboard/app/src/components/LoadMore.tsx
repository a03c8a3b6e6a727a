import { Button, Center, Text } from '@mantine/core';

/** What {@link LoadMore} reads of a cursor list (`useCursorList`). */
export interface LoadableList {
  items: readonly unknown[];
  total?: number | undefined;
  hasNextPage: boolean;
  isFetchingNextPage: boolean;
  fetchNextPage: () => unknown;
}

/** The foot of a cursor list: how many are shown of how many, and the button for the next page. */
export function LoadMore({ list }: { list: LoadableList }) {
  const shown = list.items.length;
  return (
    <Center mt="md" style={{ flexDirection: 'column', gap: 8 }}>
      <Text size="sm" c="dimmed" role="status">
        {list.total === undefined
          ? `${shown.toLocaleString()} shown`
          : `${shown.toLocaleString()} of ${list.total.toLocaleString()} shown`}
      </Text>
      {list.hasNextPage && (
        <Button
          variant="default"
          onClick={() => void list.fetchNextPage()}
          loading={list.isFetchingNextPage}
        >
          Load more
        </Button>
      )}
    </Center>
  );
}
