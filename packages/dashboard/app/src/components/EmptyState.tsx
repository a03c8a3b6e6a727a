import { Paper, Stack, Text, Title } from '@mantine/core';
import type { ReactNode } from 'react';

/** What a list shows when it has nothing yet: what it is for and what to do next. */
export function EmptyState({
  title,
  children,
  action,
}: {
  title: string;
  children: ReactNode;
  action?: ReactNode;
}) {
  return (
    <Paper withBorder p="xl" radius="md">
      <Stack align="center" gap="xs">
        <Title order={3} size="h4">
          {title}
        </Title>
        <Text c="dimmed" ta="center" maw={480}>
          {children}
        </Text>
        {action}
      </Stack>
    </Paper>
  );
}
