import { Card, Center, Group, Loader, Progress, Stack, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';

import { api, unwrap } from '../../api/client';
import { useProjectId } from '../../api/session';
import { ErrorAlert } from '../../components/ErrorAlert';
import { CATEGORIES, CATEGORY_WORDS, periodWords } from './billingCategories';

/** This month's email per category against its cap (`billing-consumption`), as progress bars. */
export function Consumption() {
  const projectId = useProjectId();
  const consumption = useQuery({
    queryKey: [projectId, 'billing-consumption'],
    queryFn: () =>
      unwrap(
        api.GET('/users/@me/projects/{id}/billing-consumption', {
          params: { path: { id: projectId } },
        }),
      ),
  });
  return (
    <Card withBorder component="section" aria-labelledby="usage-title">
      <Title order={2} size="h4" mb="xs" id="usage-title">
        Usage this month
      </Title>
      {consumption.isPending && (
        <Center p="md">
          <Loader size="sm" aria-label="Loading the usage" />
        </Center>
      )}
      <ErrorAlert error={consumption.error} title="The usage could not be loaded" />
      {consumption.data !== undefined && (
        <Stack gap="md">
          <Text size="sm" c="dimmed">
            {periodWords(consumption.data.period)}
          </Text>
          {CATEGORIES.map((category) => {
            const used = consumption.data.usage[category] ?? 0;
            const cap = consumption.data.limits[category] ?? null;
            const percent = cap === null ? 0 : cap === 0 ? 100 : Math.min(100, (used / cap) * 100);
            return (
              <div key={category}>
                <Group justify="space-between" mb={4}>
                  <Text size="sm" fw={600}>
                    {CATEGORY_WORDS[category]}
                  </Text>
                  <Text size="sm">
                    {cap === null
                      ? `${used.toLocaleString()} sent, no cap`
                      : `${used.toLocaleString()} of ${cap.toLocaleString()}`}
                  </Text>
                </Group>
                {cap !== null && (
                  <Progress
                    value={percent}
                    color={percent >= 90 ? 'red' : percent >= 75 ? 'orange' : 'blue'}
                    aria-label={`${CATEGORY_WORDS[category]}: ${Math.round(percent)}% of the cap used`}
                  />
                )}
              </div>
            );
          })}
        </Stack>
      )}
    </Card>
  );
}
