import { Group, Text, Title } from '@mantine/core';
import type { ReactNode } from 'react';

/** A page's title (the page's one `h1`), a line on what it is for, and its main actions. */
export function PageHeader({
  title,
  description,
  actions,
}: {
  title: string;
  description?: string;
  actions?: ReactNode;
}) {
  return (
    <Group justify="space-between" align="flex-start" mb="lg" wrap="wrap">
      <div>
        <Title order={1} size="h2">
          {title}
        </Title>
        {description !== undefined && <Text c="dimmed">{description}</Text>}
      </div>
      {actions !== undefined && <Group gap="sm">{actions}</Group>}
    </Group>
  );
}
