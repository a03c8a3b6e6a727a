import { Button, Center, Text } from '@mantine/core';

/** The foot of a cursor list: how many are shown of how many, and the button for the next page. */
export function LoadMore({
  shown,
  total,
  hasNextPage,
  isFetchingNextPage,
  fetchNextPage,
}: {
  shown: number;
  total?: number | undefined;
  hasNextPage: boolean;
  isFetchingNextPage: boolean;
  fetchNextPage: () => unknown;
}) {
  return (
    <Center mt="md" style={{ flexDirection: 'column', gap: 8 }}>
      <Text size="sm" c="dimmed" role="status">
        {total === undefined
          ? `${shown.toLocaleString()} shown`
          : `${shown.toLocaleString()} of ${total.toLocaleString()} shown`}
      </Text>
      {hasNextPage && (
        <Button variant="default" onClick={() => void fetchNextPage()} loading={isFetchingNextPage}>
          Load more
        </Button>
      )}
    </Center>
  );
}
