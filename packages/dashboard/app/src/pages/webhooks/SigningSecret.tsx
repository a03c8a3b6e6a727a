import { Button, Card, Code, CopyButton, Group, Text, Title } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';

/** An endpoint's signing secret: hidden until asked for, and copyable. */
export function SigningSecret({ secret }: { secret: string }) {
  const [shown, { toggle }] = useDisclosure(false);
  return (
    <Card withBorder>
      <Title order={2} size="h4" mb="xs">
        Signing secret
      </Title>
      <Text size="sm" c="dimmed" mb="sm">
        Check the webhook-signature header of each request with this secret (Standard Webhooks) to
        know it comes from Stamp.
      </Text>
      <Code block mb="sm" style={{ wordBreak: 'break-all' }}>
        {shown ? secret : `${secret.slice(0, 6)}${'•'.repeat(24)}`}
      </Code>
      <Group gap="sm">
        <Button size="xs" variant="default" onClick={toggle}>
          {shown ? 'Hide the secret' : 'Show the secret'}
        </Button>
        <CopyButton value={secret}>
          {({ copied, copy }) => (
            <Button size="xs" variant="light" onClick={copy}>
              {copied ? 'Copied' : 'Copy the secret'}
            </Button>
          )}
        </CopyButton>
      </Group>
    </Card>
  );
}
