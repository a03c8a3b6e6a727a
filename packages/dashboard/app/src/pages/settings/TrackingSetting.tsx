import { Button, Card, Group, Select, Stack, Text, Title } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';

import { api, unwrap } from '../../api/client';
import { useProjectId } from '../../api/session';
import { ErrorAlert } from '../../components/ErrorAlert';
import { useGuard } from './RoleNote';

type Mode = 'ENABLED' | 'DISABLED' | 'MARKETING_ONLY';

/** The choices; `DEFAULT` stands for null, the installation's default (`STAMP_TRACKING`). */
const CHOICES: Record<Mode | 'DEFAULT', string> = {
  DEFAULT: "The installation's default",
  ENABLED: 'Track opens and clicks of every email',
  MARKETING_ONLY: 'Track marketing email only',
  DISABLED: 'Do not track opens and clicks',
};

const isChoice = (value: string | null): value is keyof typeof CHOICES =>
  value !== null && Object.hasOwn(CHOICES, value);

/** Open and click tracking of the project (`PATCH /users/@me/projects/:id {tracking}`). */
export function TrackingSetting() {
  const projectId = useProjectId();
  const guard = useGuard('project.update', 'change tracking');
  const [choice, setChoice] = useState<keyof typeof CHOICES | null>(null);
  const save = useMutation({
    mutationFn: (tracking: Mode | null) =>
      unwrap(
        api.PATCH('/users/@me/projects/{id}', {
          params: { path: { id: projectId } },
          body: { tracking },
        }),
      ),
  });
  const saved = save.data?.tracking;
  return (
    <Card withBorder component="section" aria-labelledby="tracking-title">
      <Title order={2} size="h4" mb="xs" id="tracking-title">
        Open and click tracking
      </Title>
      <Text size="sm" c="dimmed" mb="sm">
        With tracking, Stamp adds an invisible image to each email and routes its links through this
        server to count opens and clicks. Choosing a setting replaces the one in force.
      </Text>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          if (choice !== null) save.mutate(choice === 'DEFAULT' ? null : choice);
        }}
      >
        <Stack gap="xs">
          <ErrorAlert error={save.error} title="Tracking was not changed" />
          <Group align="flex-end">
            <Select
              label="Tracking"
              placeholder="Choose a setting"
              data={Object.entries(CHOICES).map(([value, label]) => ({ value, label }))}
              value={choice}
              onChange={(value) => setChoice(isChoice(value) ? value : null)}
              disabled={!guard.allowed}
              aria-describedby={guard.describedBy}
              w={320}
            />
            <Button
              type="submit"
              loading={save.isPending}
              disabled={!guard.allowed || choice === null}
            >
              Save tracking
            </Button>
          </Group>
          {guard.note}
          {save.isSuccess && (
            <Text size="sm" role="status">
              Saved: {CHOICES[saved ?? 'DEFAULT']}. New emails follow it within a few seconds.
            </Text>
          )}
        </Stack>
      </form>
    </Card>
  );
}
