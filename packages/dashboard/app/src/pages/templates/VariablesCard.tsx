import { Button, Card, Code, CopyButton, Group, Loader, Stack, Text } from '@mantine/core';

import { ErrorAlert } from '../../components/ErrorAlert';
import type { TemplateVariable } from './useTemplateVariables';

/** The variables a template can use, each with a button that copies its Liquid tag. */
export function VariablesCard({
  variables,
  isPending,
  error,
}: {
  variables: readonly TemplateVariable[];
  isPending: boolean;
  error: unknown;
}) {
  return (
    <Card withBorder>
      <Text fw={600} component="h2" mb={4}>
        Variables
      </Text>
      <Text size="sm" c="dimmed" mb="sm">
        Each email fills these in for its recipient. A fallback goes after a filter:{' '}
        <Code>{'{{ data.firstName | default: "there" }}'}</Code>. Data fields also work without{' '}
        <Code>data.</Code> in front. Subscription links go nowhere in the preview.
      </Text>
      {isPending && <Loader size="sm" aria-label="Loading the contact fields" />}
      <ErrorAlert error={error} title="The contact fields could not be loaded" />
      <Stack gap={6} component="ul" style={{ listStyle: 'none', padding: 0, margin: 0 }}>
        {variables.map((variable) => {
          const tag = `{{ ${variable.name} }}`;
          return (
            <Group
              key={variable.name}
              component="li"
              gap="xs"
              wrap="nowrap"
              justify="space-between"
            >
              <div>
                <Code>{tag}</Code>
                <Text size="xs" c="dimmed">
                  {variable.description}
                </Text>
              </div>
              <CopyButton value={tag}>
                {({ copied, copy }) => (
                  <Button
                    variant="subtle"
                    size="compact-xs"
                    onClick={copy}
                    aria-label={`Copy ${tag}`}
                  >
                    {copied ? 'Copied' : 'Copy'}
                  </Button>
                )}
              </CopyButton>
            </Group>
          );
        })}
      </Stack>
    </Card>
  );
}
