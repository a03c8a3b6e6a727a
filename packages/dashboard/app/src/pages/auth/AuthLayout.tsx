import { Anchor, Center, Paper, Stack, Text, Title } from '@mantine/core';
import type { ReactNode } from 'react';

/** The frame of the pages outside a project: the product's name, a card and its title. */
export function AuthLayout({ title, children }: { title: string; children: ReactNode }) {
  return (
    <Center component="main" mih="100vh" bg="gray.0" p="md">
      <Stack w="100%" maw={420} gap="md">
        <Text fw={700} size="xl" ta="center" c="blue.8">
          Stamp
        </Text>
        <Paper withBorder shadow="sm" p="xl" radius="md">
          <Title order={1} size="h3" mb="md">
            {title}
          </Title>
          {children}
        </Paper>
        <Text size="xs" ta="center" c="dimmed">
          <Anchor href="/docs" size="xs">
            API reference
          </Anchor>
        </Text>
      </Stack>
    </Center>
  );
}
