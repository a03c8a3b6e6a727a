import {
  Alert,
  AppShell,
  Burger,
  Button,
  Center,
  Group,
  Loader,
  Menu,
  NavLink,
  ScrollArea,
  Select,
  Text,
} from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Suspense, useEffect } from 'react';
import { NavLink as RouterNavLink, Outlet, useNavigate } from 'react-router';

import { api, setCurrentProject, unwrap } from '../api/client';
import { useMe, useProjectId, useProjects } from '../api/session';
import { ErrorAlert } from '../components/ErrorAlert';
import { rememberProject } from '../pages/projects/HomePage';
import { PROJECT_PAGES, projectPath } from './navigation';
import { RequireSession } from './RequireSession';

function VerifyBanner() {
  const me = useMe();
  const resend = useMutation({ mutationFn: () => unwrap(api.POST('/auth/request-verification')) });
  if (me.data === null || me.data === undefined || me.data.emailVerified) return null;
  return (
    <Alert color="yellow" variant="light" mb="md" title="Verify your email address">
      <Group gap="sm">
        <Text size="sm">We sent a link to {me.data.email}.</Text>
        <Button
          size="xs"
          variant="light"
          onClick={() => resend.mutate()}
          loading={resend.isPending}
          disabled={resend.isSuccess}
        >
          {resend.isSuccess ? 'Sent' : 'Send it again'}
        </Button>
      </Group>
      <ErrorAlert error={resend.error} />
    </Alert>
  );
}

function Shell() {
  const projectId = useProjectId();
  const [opened, { toggle, close }] = useDisclosure();
  const me = useMe();
  const projects = useProjects();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  // Calls made while this project's pages render name it (X-Project-Id).
  setCurrentProject(projectId);
  useEffect(() => {
    rememberProject(projectId);
  }, [projectId]);
  const logout = useMutation({
    mutationFn: () => unwrap(api.GET('/auth/logout')),
    onSuccess: () => {
      queryClient.clear();
      void navigate('/login');
    },
  });
  const project = projects.data?.find((item) => item.id === projectId);
  if (projects.isPending) {
    return (
      <Center mih="100vh">
        <Loader aria-label="Loading the project" />
      </Center>
    );
  }
  if (projects.isError) return <ErrorAlert error={projects.error} />;
  if (project === undefined) {
    return (
      <Center mih="100vh" p="md">
        <Alert color="red" title="Project not found">
          This project does not exist or you are not one of its members.{' '}
          <RouterNavLink to="/">Open your projects</RouterNavLink>
        </Alert>
      </Center>
    );
  }
  return (
    <AppShell
      header={{ height: 56 }}
      navbar={{ width: 220, breakpoint: 'sm', collapsed: { mobile: !opened } }}
      padding="md"
    >
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between" wrap="nowrap">
          <Group gap="sm" wrap="nowrap">
            <Burger
              opened={opened}
              onClick={toggle}
              hiddenFrom="sm"
              size="sm"
              aria-label="Toggle the navigation"
            />
            <Text fw={700} c="blue.8">
              Stamp
            </Text>
            <Select
              aria-label="Project"
              data={(projects.data ?? []).map((item) => ({ value: item.id, label: item.name }))}
              value={projectId}
              allowDeselect={false}
              onChange={(value) => {
                if (value !== null && value !== projectId) void navigate(projectPath(value));
              }}
              w={200}
              size="sm"
            />
            <Button component={RouterNavLink} to="/projects/new" variant="subtle" size="compact-sm">
              New project
            </Button>
          </Group>
          <Menu position="bottom-end">
            <Menu.Target>
              <Button variant="subtle" size="compact-sm">
                {me.data?.email}
              </Button>
            </Menu.Target>
            <Menu.Dropdown>
              <Menu.Label>
                {project.name} · {project.role}
              </Menu.Label>
              <Menu.Item onClick={() => logout.mutate()}>Sign out</Menu.Item>
            </Menu.Dropdown>
          </Menu>
        </Group>
      </AppShell.Header>
      <AppShell.Navbar p="xs" aria-label="Project pages">
        <ScrollArea>
          {PROJECT_PAGES.map((page) => (
            <NavLink
              key={page.path}
              component={RouterNavLink}
              to={projectPath(projectId, page.path)}
              end={page.path === ''}
              label={page.label}
              onClick={close}
            />
          ))}
        </ScrollArea>
      </AppShell.Navbar>
      <AppShell.Main>
        <VerifyBanner />
        <Suspense
          fallback={
            <Center p="xl">
              <Loader aria-label="Loading the page" />
            </Center>
          }
        >
          <Outlet />
        </Suspense>
      </AppShell.Main>
    </AppShell>
  );
}

/** The frame of a project's pages: header with the project switcher, navigation, and the page. */
export default function ProjectShell() {
  return (
    <RequireSession>
      <Shell />
    </RequireSession>
  );
}
