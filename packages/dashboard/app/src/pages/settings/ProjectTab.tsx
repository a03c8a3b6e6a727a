import { Stack } from '@mantine/core';

import { DangerZone } from './DangerZone';
import { RenameProject } from './RenameProject';
import { TrackingSetting } from './TrackingSetting';

/** `settings/project`: the project's name, its open and click tracking, reset and deletion. */
export default function ProjectTab() {
  return (
    <Stack>
      <RenameProject />
      <TrackingSetting />
      <DangerZone />
    </Stack>
  );
}
