import { Center, Loader, Tabs } from '@mantine/core';
import { Suspense } from 'react';
import { Navigate, Outlet, useLocation, useNavigate } from 'react-router';

import { useProjectId } from '../../api/session';
import { PageHeader } from '../../components/PageHeader';
import { projectPath } from '../../shell/navigation';

/** The tabs of the settings, each a sub-route of `settings/`. */
const TABS = [
  { value: 'project', label: 'Project' },
  { value: 'keys', label: 'API keys' },
  { value: 'members', label: 'Members' },
  { value: 'billing', label: 'Billing' },
  { value: 'suppressions', label: 'Suppressions' },
] as const;

/** `/p/:projectId/settings/*`: the settings' title and tabs around the tab's page. */
export default function SettingsLayout() {
  const projectId = useProjectId();
  const navigate = useNavigate();
  const { pathname } = useLocation();
  const current = TABS.find((tab) => pathname.endsWith(`/settings/${tab.value}`))?.value ?? null;
  // `settings` alone opens the first tab.
  if (current === null) return <Navigate to={projectPath(projectId, 'settings/project')} replace />;
  return (
    <>
      <PageHeader
        title="Settings"
        description="The project's name and tracking, API keys, members, billing and suppressed addresses."
      />
      <Tabs
        value={current}
        onChange={(value) => {
          if (value !== null) void navigate(projectPath(projectId, `settings/${value}`));
        }}
      >
        <Tabs.List aria-label="Settings">
          {TABS.map((tab) => (
            <Tabs.Tab key={tab.value} value={tab.value}>
              {tab.label}
            </Tabs.Tab>
          ))}
        </Tabs.List>
        {TABS.map((tab) => (
          <Tabs.Panel key={tab.value} value={tab.value} pt="md">
            {tab.value === current && (
              <Suspense
                fallback={
                  <Center p="xl">
                    <Loader aria-label="Loading" />
                  </Center>
                }
              >
                <Outlet />
              </Suspense>
            )}
          </Tabs.Panel>
        ))}
      </Tabs>
    </>
  );
}
