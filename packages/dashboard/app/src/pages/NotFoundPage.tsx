import { Anchor, Center, Stack, Text, Title } from '@mantine/core';
import { Link } from 'react-router';

/** A page that does not exist. */
export function NotFoundPage() {
  return (
    <Center component="main" mih="50vh">
      <Stack align="center">
        <Title order={1} size="h2">
          Page not found
        </Title>
        <Text c="dimmed">There is nothing at this address.</Text>
        <Anchor component={Link} to="/">
          Go to the dashboard
        </Anchor>
      </Stack>
    </Center>
  );
}
