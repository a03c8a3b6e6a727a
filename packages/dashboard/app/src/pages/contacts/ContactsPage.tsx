import { Button, Group, Loader, Select, TextInput } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useCallback, useState } from 'react';
import { Link } from 'react-router';

import { api, type Schema, unwrap } from '../../api/client';
import { useCursorList } from '../../api/lists';
import { useProjectId } from '../../api/session';
import { EmptyState } from '../../components/EmptyState';
import { ErrorAlert } from '../../components/ErrorAlert';
import { LoadMore } from '../../components/LoadMore';
import { PageHeader } from '../../components/PageHeader';
import { projectPath } from '../../shell/navigation';
import { BulkActions } from './BulkActions';
import { ContactsTable } from './ContactsTable';
import { CreateContactButton } from './CreateContactButton';

/** The orders of the list: the API's `sort` and `dir`. */
const SORTS = {
  'createdAt:desc': { label: 'Newest first', sort: 'createdAt', dir: 'desc' },
  'createdAt:asc': { label: 'Oldest first', sort: 'createdAt', dir: 'asc' },
  'updatedAt:desc': { label: 'Recently updated', sort: 'updatedAt', dir: 'desc' },
  'email:asc': { label: 'Email, A to Z', sort: 'email', dir: 'asc' },
  'email:desc': { label: 'Email, Z to A', sort: 'email', dir: 'desc' },
} as const;
type SortKey = keyof typeof SORTS;

const SUBSCRIPTIONS = {
  all: 'Everyone',
  true: 'Subscribed',
  false: 'Unsubscribed',
} as const;
type SubscriptionFilter = keyof typeof SUBSCRIPTIONS;

/** Whether `value` is a key of `object`. */
function isKeyOf<T extends object>(object: T, value: string | null): value is keyof T & string {
  return value !== null && Object.hasOwn(object, value);
}

/** Characters typed in the search box are sent after this pause, ms. */
const SEARCH_DELAY_MS = 300;

/**
 * `/p/:projectId/contacts`: the project's contacts, 50 at a time however many there are (`GET
 * /contacts`, searched by email, filtered by subscription, sorted), with actions on the selected
 * ones, and the ways to add contacts (one by one, or from a CSV file).
 */
export default function ContactsPage() {
  const projectId = useProjectId();
  const [search, setSearch] = useState('');
  const [query] = useDebouncedValue(search.trim(), SEARCH_DELAY_MS);
  const [subscription, setSubscription] = useState<SubscriptionFilter>('all');
  const [order, setOrder] = useState<SortKey>('createdAt:desc');
  const [selected, setSelected] = useState<ReadonlyMap<string, string>>(new Map());
  const { sort, dir } = SORTS[order];
  const list = useCursorList(
    [projectId, 'contacts', 'list', { query, subscription, order }],
    (cursor) =>
      unwrap(
        api.GET('/contacts', {
          params: {
            query: {
              limit: 50,
              sort,
              dir,
              ...(cursor === undefined ? {} : { cursor }),
              ...(query === '' ? {} : { search: query }),
              ...(subscription === 'all' ? {} : { subscribed: subscription }),
            },
          },
        }),
      ),
  );
  const select = useCallback(
    ({ contacts, selected: on }: { contacts: Schema<'Contact'>[]; selected: boolean }) =>
      setSelected((before) => {
        const after = new Map(before);
        for (const contact of contacts) {
          if (on) after.set(contact.id, contact.email);
          else after.delete(contact.id);
        }
        return after;
      }),
    [],
  );
  const clear = useCallback(() => setSelected(new Map()), []);
  const filtered = query !== '' || subscription !== 'all';
  return (
    <>
      <PageHeader
        title="Contacts"
        description="The people you email: their subscription and the data you keep about them."
        actions={
          <>
            <Button
              component={Link}
              to={projectPath(projectId, 'contacts/import')}
              variant="default"
            >
              Import a CSV file
            </Button>
            <CreateContactButton />
          </>
        }
      />
      <Group mb="md" align="flex-end" wrap="wrap">
        <TextInput
          label="Search by email"
          type="search"
          placeholder="Part of an address, for example @example.com"
          value={search}
          onChange={(change) => setSearch(change.currentTarget.value)}
          maxLength={254}
          w={320}
        />
        <Select
          label="Subscription"
          data={Object.entries(SUBSCRIPTIONS).map(([value, label]) => ({ value, label }))}
          value={subscription}
          onChange={(value) => setSubscription(isKeyOf(SUBSCRIPTIONS, value) ? value : 'all')}
          allowDeselect={false}
          w={180}
        />
        <Select
          label="Order"
          data={Object.entries(SORTS).map(([value, { label }]) => ({ value, label }))}
          value={order}
          onChange={(value) => setOrder(isKeyOf(SORTS, value) ? value : 'createdAt:desc')}
          allowDeselect={false}
          w={200}
        />
      </Group>
      <BulkActions selected={selected} onClear={clear} />
      <ErrorAlert error={list.error} title="The contacts could not be loaded" />
      {list.isPending && <Loader aria-label="Loading the contacts" />}
      {list.isSuccess && list.items.length === 0 && (
        <EmptyState title={filtered ? 'No contact matches' : 'No contacts yet'}>
          {filtered
            ? 'Try another part of the address, or show everyone.'
            : 'Add a contact, import a CSV file, or send an email: its recipient becomes a contact.'}
        </EmptyState>
      )}
      {list.items.length > 0 && (
        <>
          <ContactsTable
            projectId={projectId}
            contacts={list.items}
            selected={selected}
            onSelect={select}
          />
          <LoadMore list={list} />
        </>
      )}
    </>
  );
}
