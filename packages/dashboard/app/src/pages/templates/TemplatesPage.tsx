import {
  Anchor,
  Button,
  Center,
  Group,
  Loader,
  Select,
  Table,
  Text,
  TextInput,
  VisuallyHidden,
} from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useState } from 'react';
import { Link } from 'react-router';

import { api, unwrap } from '../../api/client';
import { useCursorList } from '../../api/lists';
import { useProjectId } from '../../api/session';
import { EmptyState } from '../../components/EmptyState';
import { ErrorAlert } from '../../components/ErrorAlert';
import { LoadMore } from '../../components/LoadMore';
import { PageHeader } from '../../components/PageHeader';
import { projectPath } from '../../shell/navigation';
import { TemplateRowActions } from './TemplateRowActions';
import { TEMPLATE_TYPES, type TemplateType, TemplateTypeBadge } from './TemplateTypeBadge';

/** The orders of the list: `<field>:<direction>` of `GET /templates`. */
const SORTS = [
  { value: 'createdAt:desc', label: 'Newest first', field: 'createdAt', dir: 'desc' },
  { value: 'createdAt:asc', label: 'Oldest first', field: 'createdAt', dir: 'asc' },
  { value: 'updatedAt:desc', label: 'Recently changed', field: 'updatedAt', dir: 'desc' },
  { value: 'name:asc', label: 'Name, A to Z', field: 'name', dir: 'asc' },
  { value: 'name:desc', label: 'Name, Z to A', field: 'name', dir: 'desc' },
] as const;
type Sort = (typeof SORTS)[number];
const isType = (value: string | null): value is TemplateType =>
  TEMPLATE_TYPES.some((type) => type.value === value);

/** `/p/:projectId/templates`: the project's email templates, searchable, by type and order. */
export default function TemplatesPage() {
  const projectId = useProjectId();
  const [search, setSearch] = useState('');
  const [debouncedSearch] = useDebouncedValue(search.trim(), 300);
  const [type, setType] = useState<TemplateType | null>(null);
  const [sort, setSort] = useState<Sort>(SORTS[0]);
  const list = useCursorList(
    [projectId, 'templates', 'list', { search: debouncedSearch, type, sort: sort.value }],
    (cursor) =>
      unwrap(
        api.GET('/templates', {
          params: {
            query: {
              limit: 25,
              sort: sort.field,
              dir: sort.dir,
              ...(debouncedSearch === '' ? {} : { search: debouncedSearch }),
              ...(type === null ? {} : { type }),
              ...(cursor === undefined ? {} : { cursor }),
            },
          },
        }),
      ),
  );
  const filtered = debouncedSearch !== '' || type !== null;
  const newButton = (
    <Button component={Link} to={projectPath(projectId, 'templates/new')}>
      New template
    </Button>
  );

  return (
    <>
      <PageHeader
        title="Templates"
        description="Reusable emails for campaigns, workflows and the sending API."
        actions={newButton}
      />
      <Group mb="md" align="flex-end">
        <TextInput
          label="Search"
          placeholder="Name or subject"
          value={search}
          onChange={(event) => setSearch(event.currentTarget.value)}
          style={{ flex: 1, minWidth: 200 }}
        />
        <Select
          label="Type"
          data={[
            { value: 'ANY', label: 'All types' },
            ...TEMPLATE_TYPES.map(({ value, label }) => ({ value, label })),
          ]}
          value={type ?? 'ANY'}
          onChange={(value) => setType(isType(value) ? value : null)}
          allowDeselect={false}
          w={180}
        />
        <Select
          label="Order"
          data={SORTS.map(({ value, label }) => ({ value, label }))}
          value={sort.value}
          onChange={(value) => setSort(SORTS.find((item) => item.value === value) ?? SORTS[0])}
          allowDeselect={false}
          w={200}
        />
      </Group>
      {list.isPending && (
        <Center p="xl">
          <Loader aria-label="Loading the templates" />
        </Center>
      )}
      <ErrorAlert error={list.error} title="The templates could not be loaded" />
      {list.isSuccess && list.items.length === 0 && (
        <EmptyState
          title={filtered ? 'No template matches' : 'No templates yet'}
          action={filtered ? undefined : newButton}
        >
          {filtered
            ? 'Try other words, or clear the type filter.'
            : 'Write an email once and use it in campaigns, workflows and API sends. Start with a new template.'}
        </EmptyState>
      )}
      {list.items.length > 0 && (
        <>
          <Table.ScrollContainer minWidth={720}>
            <Table verticalSpacing="sm" highlightOnHover>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Name</Table.Th>
                  <Table.Th>Type</Table.Th>
                  <Table.Th>Subject</Table.Th>
                  <Table.Th>Last changed</Table.Th>
                  <Table.Th>
                    <VisuallyHidden>Actions</VisuallyHidden>
                  </Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {list.items.map((template) => (
                  <Table.Tr key={template.id}>
                    <Table.Td>
                      <Anchor
                        component={Link}
                        to={projectPath(projectId, `templates/${template.id}`)}
                        fw={500}
                      >
                        {template.name}
                      </Anchor>
                    </Table.Td>
                    <Table.Td>
                      <TemplateTypeBadge type={template.type} />
                    </Table.Td>
                    <Table.Td>
                      <Text size="sm" lineClamp={1}>
                        {template.subject}
                      </Text>
                    </Table.Td>
                    <Table.Td>
                      <Text size="sm">{new Date(template.updatedAt).toLocaleString()}</Text>
                    </Table.Td>
                    <Table.Td>
                      <TemplateRowActions template={template} />
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
          <LoadMore list={list} />
        </>
      )}
    </>
  );
}
